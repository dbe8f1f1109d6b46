import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { HostedToolsConfig } from '../../src/config/types.js';
import { startSimulatedGateway, type SimulatedGateway } from './simulated-gateway.js';
import { startFakeSearchBackend, type FakeSearchBackend } from './start-fake-search-backend.js';

export interface WebSearchGateway {
  searxng: FakeSearchBackend;
  gateway: SimulatedGateway;
  openai: OpenAI;
  anthropic: Anthropic;
}

/** The `hosted_tools.web_search` section for a fake SearXNG: at most 5 results and 3 searches a request. */
export function searxngWebSearch(searxng: FakeSearchBackend, pricePerSearch: bigint, timeoutMs: number): NonNullable<HostedToolsConfig['webSearch']> {
  return { backend: 'searxng', baseUrl: searxng.baseUrl, apiKey: '', pricePerSearch, maxResults: 5, maxUses: 3, timeoutMs };
}

/**
 * A fake SearXNG, a simulated gateway searching through it, and the OpenAI and Anthropic SDKs on
 * the gateway (`maxRetries` as given, the SDKs' own default otherwise). Registers its own hooks:
 * `bind` is handed what was started before the file's tests; after each test the held searches are
 * answered and the backend is back to `ok` with no searches recorded; after all, everything closes.
 */
export function useWebSearchGateway(
  options: { pricePerSearch: bigint; timeoutMs: number; webFetch?: HostedToolsConfig['webFetch']; maxRetries?: number },
  bind: (started: WebSearchGateway) => void,
): void {
  let searxng: FakeSearchBackend | undefined;
  let gateway: SimulatedGateway | undefined;
  beforeAll(async () => {
    const backend = await startFakeSearchBackend('searxng');
    searxng = backend;
    gateway = await startSimulatedGateway({
      configure: (config) => {
        config.hostedTools = { webSearch: searxngWebSearch(backend, options.pricePerSearch, options.timeoutMs), ...(options.webFetch && { webFetch: options.webFetch }) };
      },
    });
    const openai = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1`, maxRetries: options.maxRetries });
    const anthropic = new Anthropic({ apiKey: gateway.key, baseURL: gateway.url, maxRetries: options.maxRetries });
    bind({ searxng: backend, gateway, openai, anthropic });
  });
  afterAll(async () => {
    // A search still held would keep the gateway's request, and so its close, waiting.
    searxng?.release();
    await gateway?.close();
    await searxng?.close();
  });
  afterEach(() => {
    searxng!.release();
    searxng!.mode = 'ok';
    searxng!.searches.length = 0;
  });
}
