import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { recording, replayCatalogYaml, startReplayProvider, type ReplayProvider } from '../helpers/replay-provider.js';
import { readAccountMoney, startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';

/**
 * The Gemini style's native pass-through: recorded Gemini answers (the gemini adapter's fixtures,
 * see src/providers/gemini/__fixtures__/SOURCES.md) replayed through the gateway must reach a
 * Gemini client as Gemini sent them, but for `responseId` (the request id), `modelVersion` (the
 * catalog id) and the `cost` added to `usageMetadata`; and the charge must be that cost.
 */
let replay: ReplayProvider;
let gateway: SimulatedGateway;

beforeAll(async () => {
  replay = await startReplayProvider();
  gateway = await startSimulatedGateway({ catalogYaml: () => withTranslatedGemini(replayCatalogYaml(replay.url)), credits: 100 });
});
afterAll(async () => {
  await gateway?.close();
  await replay?.close();
});
beforeEach(() => replay.reset());

/** The same recordings behind a gemini-wire provider with pass-through off: the Gemini style's own encoder answers. */
function withTranslatedGemini(yaml: string): string {
  const provider = `  - {id: rec-gemini-translated, name: Recorded Gemini (translated), api: gemini, base_url: "${replay.url}/v1beta", api_key: k, pass_through: false, timeouts: {connect_ms: 2000, first_byte_ms: 5000, idle_ms: 5000}}\n`;
  const model = `  - id: rec/gemini-translated
    name: "Recorded: translated"
    context_length: 200000
    modalities: {input: [text], output: [text]}
    endpoints:
      - provider: rec-gemini-translated
        model: gemini-3.1-pro-preview
        pricing: {prompt: 1, completion: 2}
        supported_parameters: [max_tokens, temperature, tools, tool_choice, reasoning]
        max_completion_tokens: 8000
`;
  return yaml.replace('models:\n', `${provider}models:\n`) + model;
}

const fixture = (name: string) => readFileSync(new URL(`../../src/providers/gemini/__fixtures__/${name}`, import.meta.url), 'utf8');
const body = { contents: [{ role: 'user', parts: [{ text: 'hi' }] }], generationConfig: { temperature: 0.5 }, safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }] };

function post(path: string, payload: unknown, model = 'rec/gemini'): Promise<Response> {
  return fetch(`${gateway.url}/v1beta/models/${model}:${path}`, { method: 'POST', headers: { 'x-goog-api-key': gateway.key, 'content-type': 'application/json' }, body: JSON.stringify(payload) });
}

/** Recorded pricing: $1 per 1M prompt tokens, $2 per 1M output tokens; Gemini bills tool-use prompts and thoughts too. */
function expectedCost(usage: Record<string, number> | undefined): number {
  const prompt = (usage?.promptTokenCount ?? 0) + (usage?.toolUsePromptTokenCount ?? 0);
  const output = (usage?.candidatesTokenCount ?? 0) + (usage?.thoughtsTokenCount ?? 0);
  return (prompt * 1 + output * 2) / 1e6;
}

/** The chunk as the provider sent it, with what the gateway writes over taken out (after checking it). */
function withoutIdentity(chunk: Record<string, unknown>, requestId: string): Record<string, unknown> {
  const copy = structuredClone(chunk);
  if ('responseId' in copy) {
    expect(copy.responseId).toBe(requestId);
    delete copy.responseId;
  }
  if ('modelVersion' in copy) {
    expect(copy.modelVersion).toBe('rec/gemini');
    delete copy.modelVersion;
  }
  const usage = copy.usageMetadata as Record<string, unknown> | undefined;
  if (usage && 'cost' in usage) delete usage.cost;
  return copy;
}

function providerChunks(sse: string): Array<Record<string, unknown>> {
  return sse
    .split(/\r?\n\r?\n/)
    .map((event) => event.trim())
    .filter((event) => event.startsWith('data:'))
    .map((event) => JSON.parse(event.slice('data:'.length)) as Record<string, unknown>);
}

function stripProviderIdentity(chunk: Record<string, unknown>): Record<string, unknown> {
  const { responseId: _id, modelVersion: _model, ...rest } = chunk;
  return rest;
}

describe.each(['text.json', 'thinking.json', 'parallel-function-calls.json', 'safety-block.json', 'tool-use-prompt-usage.json'])('generateContent relays %s', (name) => {
  it('as Gemini sent it, but for id, model and cost, and charges that cost', async () => {
    replay.play(recording(`gemini/${name}`));
    const before = await readAccountMoney(gateway);
    const response = await post('generateContent', body);
    expect(response.status).toBe(200);
    const requestId = response.headers.get('x-request-id')!;
    const answer = (await response.json()) as Record<string, unknown>;
    const sent = JSON.parse(fixture(name)) as Record<string, unknown>;
    expect(withoutIdentity(answer, requestId)).toEqual(stripProviderIdentity(sent));
    const usage = sent.usageMetadata as Record<string, number> | undefined;
    const cost = (answer.usageMetadata as { cost: number }).cost;
    expect(cost).toBeCloseTo(expectedCost(usage), 12);
    const after = await readAccountMoney(gateway);
    expect(after.usage - before.usage).toBe(BigInt(Math.round(cost * 1e9)));
    expect(after.reserved).toBe(0n);
    // The body went as the client sent it, but for the model (in the URL) and the planned output cap.
    expect(replay.requests[0].url).toBe('/v1beta/models/gemini-3.1-pro-preview:generateContent');
    // No cap asked for: the endpoint's maximum (8,000), which these funds cover.
    expect(replay.requests[0].body).toEqual({ ...body, generationConfig: { ...body.generationConfig, maxOutputTokens: 8000 } });
  });
});

describe.each(['stream-text.sse', 'stream-function-calls.sse', 'stream-tool-use-prompt-usage.sse', 'stream-partial-args.sse', 'stream-partial-args-nested.sse'])('streamGenerateContent relays %s', (name) => {
  for (const sse of [true, false]) {
    it(`chunk for chunk as Gemini sent them${sse ? ' (alt=sse)' : ' (a JSON array)'}, the last with the cost`, async () => {
      replay.play(recording(`gemini/${name}`));
      const before = await readAccountMoney(gateway);
      const response = await post(`streamGenerateContent${sse ? '?alt=sse' : ''}`, body);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(sse ? /^text\/event-stream/ : /^application\/json/);
      const requestId = response.headers.get('x-request-id')!;
      const text = await response.text();
      const chunks = sse ? providerChunks(text) : (JSON.parse(text) as Array<Record<string, unknown>>);
      const sent = providerChunks(fixture(name));
      expect(chunks.map((chunk) => withoutIdentity(chunk, requestId))).toEqual(sent.map(stripProviderIdentity));
      const last = chunks.at(-1)!.usageMetadata as { cost: number };
      const usage = [...sent].reverse().find((chunk) => chunk.usageMetadata)?.usageMetadata as Record<string, number>;
      expect(last.cost).toBeCloseTo(expectedCost(usage), 12);
      const after = await readAccountMoney(gateway);
      expect(after.usage - before.usage).toBe(BigInt(Math.round(last.cost * 1e9)));
      expect(after.reserved).toBe(0n);
      expect(replay.requests[0].url).toBe('/v1beta/models/gemini-3.1-pro-preview:streamGenerateContent?alt=sse');
    });
  }
});

describe('the funds cap', () => {
  it('lowers maxOutputTokens to what the funds allow, and the request settles within them', async () => {
    const poor = await gateway.test.createAccount({ credits: 0.005 });
    replay.play(recording('gemini/text.json'));
    const response = await fetch(`${gateway.url}/v1beta/models/rec/gemini:generateContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': poor.key, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(200);
    const cap = (replay.requests[0].body.generationConfig as { maxOutputTokens: number }).maxOutputTokens;
    // No cap asked for: the endpoint's 8,000 would cost more than $0.005 at $2 per 1M output tokens.
    expect(cap).toBeGreaterThan(0);
    expect(cap).toBeLessThan(2500);
  });
});

describe('thought signatures', () => {
  it('go back to Gemini on the part they came on, as Gemini sent them', async () => {
    replay.play(recording('gemini/parallel-function-calls.json'), recording('gemini/text.json'));
    const first = (await (await post('generateContent', body)).json()) as { candidates: Array<{ content: { role: string; parts: Array<Record<string, unknown>> } }> };
    const turn = first.candidates[0].content;
    expect(turn.parts.some((part) => typeof part.thoughtSignature === 'string')).toBe(true);
    const responses = turn.parts.flatMap((part) => (part.functionCall ? [{ functionResponse: { name: (part.functionCall as { name: string }).name, response: { output: 'ok' } } }] : []));
    const second = await post('generateContent', { contents: [...body.contents, turn, { role: 'user', parts: responses }] });
    expect(second.status).toBe(200);
    expect((replay.requests[1].body.contents as unknown[])[1]).toEqual(turn);
  });

  it('go out untagged on the same parts, and back to Gemini so, when the answer was translated', async () => {
    replay.play(recording('gemini/parallel-function-calls.json'), recording('gemini/text.json'));
    const first = (await (await post('generateContent', body, 'rec/gemini-translated')).json()) as {
      candidates: Array<{ content: { role: string; parts: Array<Record<string, unknown>> } }>;
    };
    const turn = first.candidates[0].content;
    const sent = JSON.parse(fixture('parallel-function-calls.json')) as { candidates: Array<{ content: { parts: Array<Record<string, unknown>> } }> };
    const signatures = (parts: Array<Record<string, unknown>>) => parts.map((part) => part.thoughtSignature ?? null);
    expect(signatures(turn.parts)).toEqual(signatures(sent.candidates[0].content.parts));
    const responses = turn.parts.flatMap((part) => (part.functionCall ? [{ functionResponse: { id: (part.functionCall as { id: string }).id, name: (part.functionCall as { name: string }).name, response: { output: 'ok' } } }] : []));
    expect(responses.every((part) => typeof part.functionResponse.id === 'string')).toBe(true);
    expect((await post('generateContent', { contents: [...body.contents, turn, { role: 'user', parts: responses }] }, 'rec/gemini-translated')).status).toBe(200);
    const replayed = (replay.requests[1].body.contents as Array<{ parts: Array<Record<string, unknown>> }>)[1];
    expect(signatures(replayed.parts)).toEqual(signatures(sent.candidates[0].content.parts));
  });
});

describe('another protocol’s signatures', () => {
  it('ride on their thought part tagged, and reach that protocol untagged on the next turn', async () => {
    replay.play(recording('anthropic/recorded-thinking-tool-use-response.json'), recording('anthropic/recorded-text-response.json'));
    const answer = (await (await post('generateContent', { ...body, generationConfig: { thinkingConfig: { thinkingBudget: 2048, includeThoughts: true } } }, 'rec/anthropic')).json()) as {
      candidates: Array<{ content: { role: string; parts: Array<Record<string, unknown>> } }>;
    };
    const turn = answer.candidates[0].content;
    const sent = JSON.parse(readFileSync(new URL('../../src/providers/anthropic/__fixtures__/recorded-thinking-tool-use-response.json', import.meta.url), 'utf8')) as {
      content: Array<{ type: string; thinking?: string; signature?: string }>;
    };
    const thinking = sent.content[0];
    expect(turn.parts[0]).toEqual({ text: thinking.thinking, thought: true, thoughtSignature: `anthropic:${thinking.signature}` });
    const call = turn.parts.find((part) => part.functionCall)!.functionCall as { id: string; name: string };
    const next = await post('generateContent', { contents: [...body.contents, turn, { role: 'user', parts: [{ functionResponse: { id: call.id, name: call.name, response: { output: 'ok' } } }] }] }, 'rec/anthropic');
    expect(next.status).toBe(200);
    const messages = replay.requests[1].body.messages as Array<{ role: string; content: Array<Record<string, unknown>> }>;
    expect(messages[1].content[0]).toEqual({ type: 'thinking', thinking: thinking.thinking, signature: thinking.signature });
  });
});
