import { afterEach, describe, expect, it } from 'vitest';
import type { WebSearchBackend } from '../config/types.js';
import { startFakeSearchBackend, type FakeSearchBackend } from '../../test/helpers/start-fake-search-backend.js';
import { SearchFailedError } from './search-hit.js';
import { searchWeb, type WebSearchSettings } from './search-web.js';

let fake: FakeSearchBackend | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const settingsFor = (backend: WebSearchBackend, baseUrl: string, overrides: Partial<WebSearchSettings> = {}): WebSearchSettings => ({
  backend,
  baseUrl,
  apiKey: backend === 'searxng' ? '' : 'test-search-key',
  pricePerSearch: 0n,
  maxResults: 5,
  maxUses: 5,
  timeoutMs: 2000,
  ...overrides,
});

describe('web search backends, each over its own API', () => {
  it.each(['searxng', 'brave', 'tavily', 'exa'] as const)('%s: sends the query its way and reads the documented answer', async (backend) => {
    fake = await startFakeSearchBackend(backend);
    const hits = await searchWeb(settingsFor(backend, fake.baseUrl, { maxResults: 2 }), 'switchyard gateway', AbortSignal.timeout(5000));
    expect(hits.map((hit) => hit.url)).toEqual(['https://example.org/switchyard', 'https://docs.example.net/routing']);
    expect(hits[0]).toMatchObject({ title: 'Switchyard: an inference routing gateway', snippet: 'Switchyard routes requests to model providers and bills them per token.' });
    const [search] = fake.searches;
    if (backend === 'searxng' || backend === 'brave') expect(search.url.searchParams.get('q')).toBe('switchyard gateway');
    if (backend === 'brave') expect(search.url.searchParams.get('count')).toBe('2');
    if (backend === 'tavily') expect(search.body).toEqual({ query: 'switchyard gateway', max_results: 2 });
    if (backend === 'exa') expect(search.body).toMatchObject({ query: 'switchyard gateway', numResults: 2 });
  });

  it('keeps at most max_results', async () => {
    fake = await startFakeSearchBackend('searxng');
    const hits = await searchWeb(settingsFor('searxng', fake.baseUrl, { maxResults: 1 }), 'q', AbortSignal.timeout(5000));
    expect(hits).toHaveLength(1);
  });

  it('a wrong key, an outage and a timeout are SearchFailedError naming the backend, never the key', async () => {
    fake = await startFakeSearchBackend('brave');
    const failure = await searchWeb(settingsFor('brave', fake.baseUrl, { apiKey: 'wrong-key' }), 'q', AbortSignal.timeout(5000)).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(SearchFailedError);
    expect((failure as Error).message).toBe('Brave answered HTTP 401');
    fake.mode = 'down';
    await expect(searchWeb(settingsFor('brave', fake.baseUrl), 'q', AbortSignal.timeout(5000))).rejects.toThrow('Brave answered HTTP 503');
    fake.mode = 'hang';
    await expect(searchWeb(settingsFor('brave', fake.baseUrl, { timeoutMs: 200 }), 'q', AbortSignal.timeout(5000))).rejects.toThrow('Brave search timed out');
  });
});
