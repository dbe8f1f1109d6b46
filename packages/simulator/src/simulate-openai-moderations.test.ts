import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from './start-simulator.js';
import type { Simulator } from './simulator-types.js';

describe("the simulator's OpenAI POST /moderations", () => {
  let simulator: Simulator;
  const post = (body: unknown, headers: Record<string, string> = { authorization: 'Bearer sim-key' }) =>
    fetch(`${simulator.url}/openai/v1/moderations`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

  beforeAll(async () => {
    simulator = await startSimulator({ apiKey: 'sim-key' });
  });
  afterAll(() => simulator.close());

  it("answers OpenAI's moderation object: one result per string, thirteen categories, flagged by a trigger word", async () => {
    const response = await post({ model: 'omni-moderation-latest', input: ['a quiet morning', 'I will kill you'] });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { id: string; model: string; results: Array<Record<string, Record<string, unknown>> & { flagged: boolean }> };
    expect(body.id).toMatch(/^modr-[0-9a-f]{32}$/);
    expect(body.model).toBe('omni-moderation-latest');
    expect(body.results.map((result) => result.flagged)).toEqual([false, true]);
    expect(Object.keys(body.results[0].categories)).toHaveLength(13);
    expect(body.results[1].categories).toMatchObject({ violence: true, 'harassment/threatening': true, sexual: false });
    expect(body.results[1].category_applied_input_types).toMatchObject({ violence: ['text'], illicit: ['text'] });
    expect(body).not.toHaveProperty('usage');
  });

  it('classifies text and image parts together, the image only in the categories OpenAI applies to images', async () => {
    const response = await post({ input: [{ type: 'text', text: 'look' }, { type: 'image_url', image_url: { url: 'https://example.com/gore.jpg' } }] });
    const body = (await response.json()) as { model: string; results: Array<{ flagged: boolean; category_applied_input_types: Record<string, string[]> }> };
    expect(body.model).toBe('omni-moderation-latest');
    expect(body.results).toHaveLength(1);
    expect(body.results[0].flagged).toBe(true);
    expect(body.results[0].category_applied_input_types).toMatchObject({ violence: ['text', 'image'], hate: ['text'], 'sexual/minors': ['text'] });
  });

  it('refuses images on a text-moderation model, a bad input, and a wrong key', async () => {
    expect((await post({ model: 'text-moderation-007', input: [{ type: 'image_url', image_url: { url: 'https://example.com/a.png' } }] })).status).toBe(400);
    expect((await post({ input: [] })).status).toBe(400);
    expect((await post({ input: 'x' }, { authorization: 'Bearer wrong' })).status).toBe(401);
  });

  it('takes fault rules and status directives like the other OpenAI routes', async () => {
    simulator.setFault({ match: { protocol: 'openai', model: 'omni-moderation-latest' }, fault: { status: 429, retry_after: 3 }, times: 1 });
    const limited = await post({ model: 'omni-moderation-latest', input: 'x' });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('3');
    expect((await post({ input: '[[sim:status=503]] x' })).status).toBe(503);
    expect((await post({ input: 'x' })).status).toBe(200);
  });
});
