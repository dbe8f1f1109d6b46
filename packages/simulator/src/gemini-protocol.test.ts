import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { postJson, readSseEvents } from './__fixtures__/read-sse-events.js';
import { MESSAGE_OVERHEAD_TOKENS } from './count-tokens.js';
import type { Simulator } from './simulator-types.js';
import { startSimulator } from './start-simulator.js';

type GeminiBody = { candidates: { content: { parts: Record<string, unknown>[] } }[] };
let simulator: Simulator;
const key = { 'x-goog-api-key': 'gm-sim' };

beforeAll(async () => {
  simulator = await startSimulator({ apiKey: 'gm-sim', replyTokens: 6, chunkTokens: 2 });
});
afterAll(() => simulator.close());
beforeEach(() => simulator.reset());

const generate = (model: string, body: unknown, suffix = ':generateContent') =>
  postJson(`${simulator.baseUrls.gemini}/models/${model}${suffix}`, body, key);
const userText = (text: string) => ({ contents: [{ role: 'user', parts: [{ text }] }] });
const weatherParameters = { type: 'OBJECT', properties: { city: { type: 'STRING' } }, required: ['city'] };
const weather = { functionDeclarations: [{ name: 'get_weather', parameters: weatherParameters }] };

describe('Gemini generateContent over plain fetch', () => {
  it('answers with candidates and usageMetadata, the model taken from the path', async () => {
    const response = await generate('gemini-sim', { systemInstruction: { parts: [{ text: 'be brief' }] }, ...userText('good morning') });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      candidates: [
        { content: { role: 'model', parts: [{ text: 'Simulated reply from gemini-sim: good morning' }] }, finishReason: 'STOP', index: 0 },
      ],
      usageMetadata: {
        promptTokenCount: 4 + 2 * MESSAGE_OVERHEAD_TOKENS,
        candidatesTokenCount: 6,
        totalTokenCount: 10 + 2 * MESSAGE_OVERHEAD_TOKENS,
      },
      modelVersion: 'gemini-sim',
    });
  });

  it('reports MAX_TOKENS and accepts the key as a query parameter', async () => {
    const response = await fetch(`${simulator.baseUrls.gemini}/models/gemini-sim:generateContent?key=gm-sim`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...userText('hi'), generationConfig: { maxOutputTokens: 2 } }),
    });
    expect(await response.json()).toMatchObject({
      candidates: [{ content: { parts: [{ text: 'Simulated reply' }] }, finishReason: 'MAX_TOKENS' }],
      usageMetadata: { candidatesTokenCount: 2 },
    });
  });

  it('streams SSE chunks with CRLF endings, cumulative usage and the finish reason on the last chunk', async () => {
    const response = await generate('gemini-sim', userText('one two'), ':streamGenerateContent?alt=sse');
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const raw = await response.clone().text();
    expect(raw.endsWith('\r\n\r\n')).toBe(true);
    const chunks = (await readSseEvents(response)).map((event) => JSON.parse(event.data));
    expect(chunks.map((chunk) => chunk.candidates[0].content.parts[0].text)).toEqual(['Simulated reply', ' from gemini-sim:', ' one two']);
    expect(chunks.map((chunk) => chunk.usageMetadata.candidatesTokenCount)).toEqual([2, 4, 6]);
    expect(chunks.map((chunk) => chunk.candidates[0].finishReason)).toEqual([undefined, undefined, 'STOP']);
  });

  it('streams a JSON array without alt=sse', async () => {
    const response = await generate('gemini-sim', userText('x'), ':streamGenerateContent');
    expect(response.headers.get('content-type')).toContain('application/json');
    const chunks = (await response.json()) as { candidates: { content: { parts: { text: string }[] } }[] }[];
    expect(chunks.map((chunk) => chunk.candidates[0].content.parts[0].text).join('')).toBe('Simulated reply from gemini-sim: x x');
  });

  it('calls a function whole (Gemini does not stream partial arguments), then answers its response', async () => {
    const response = await generate('gemini-sim', { ...userText('weather?'), tools: [weather] }, ':streamGenerateContent?alt=sse');
    const chunks = (await readSseEvents(response)).map((event) => JSON.parse(event.data));
    expect(chunks).toHaveLength(1);
    expect(chunks[0].candidates[0]).toMatchObject({
      content: { parts: [{ functionCall: { name: 'get_weather', args: { city: 'sample' } } }] },
      finishReason: 'STOP',
    });

    const followUp = await generate('gemini-sim', {
      tools: [weather],
      contents: [
        { role: 'user', parts: [{ text: 'weather?' }] },
        { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'sample' } } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { forecast: 'snow' } } }] },
      ],
    });
    const body = (await followUp.json()) as GeminiBody;
    expect(body.candidates[0].content.parts[0].text).toContain('{"forecast":"snow"}');
  });

  it('obeys functionCallingConfig NONE and ANY with allowedFunctionNames', async () => {
    const tools = [{ functionDeclarations: [...weather.functionDeclarations, { name: 'get_time' }] }];
    const withConfig = async (functionCallingConfig: unknown) =>
      (await (await generate('gemini-sim', { ...userText('hi'), tools, toolConfig: { functionCallingConfig } })).json()) as GeminiBody;
    const none = await withConfig({ mode: 'NONE' });
    expect(none.candidates[0].content.parts[0].text).toBeDefined();
    const any = await withConfig({ mode: 'ANY', allowedFunctionNames: ['get_time'] });
    expect(any.candidates[0].content.parts).toEqual([{ functionCall: { name: 'get_time', args: {} } }]);
  });

  it('answers a bad key the way Gemini does: 400 INVALID_ARGUMENT with reason API_KEY_INVALID', async () => {
    const response = await postJson(`${simulator.baseUrls.gemini}/models/gemini-sim:generateContent`, userText('hi'), { 'x-goog-api-key': 'nope' });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: 400, status: 'INVALID_ARGUMENT', details: [{ reason: 'API_KEY_INVALID' }] } });
  });

  it('rejects a request without contents', async () => {
    const response = await generate('gemini-sim', {});
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: 400, status: 'INVALID_ARGUMENT' } });
  });
});
