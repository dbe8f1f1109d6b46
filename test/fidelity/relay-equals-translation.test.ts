import { readdirSync } from 'node:fs';
import { OpenRouter } from '@openrouter/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readSseEvents } from '../helpers/read-sse.js';
import { recording, replayCatalogYaml, startReplayProvider, type ReplayProvider } from '../helpers/replay-provider.js';
import { sendJson, startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';

/**
 * Contract §4, "one dialect out": every provider answer stored in the repo (recordings of real
 * vendors and the written payloads beside them, `src/providers/openai/__fixtures__`) reaches a
 * Chat Completions client the same through the native pass-through (rec/openai-native) as
 * through translation (rec/openai). The translated answer is the reference: everything it says
 * the relayed one says alike (ids and timestamps aside); the relayed one may keep a vendor's
 * extra fields, but none of the deviations the gateway normalises.
 */
const folder = new URL('../../src/providers/openai/__fixtures__/', import.meta.url);
const answers = readdirSync(folder).filter((file) => file.endsWith('.json') || file.endsWith('.txt'));

let replay: ReplayProvider;
let gateway: SimulatedGateway;
let openai: OpenAI;
let openrouter: OpenRouter;

beforeAll(async () => {
  replay = await startReplayProvider();
  gateway = await startSimulatedGateway({ catalogYaml: () => replayCatalogYaml(replay.url), credits: 1000 });
  openai = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  openrouter = new OpenRouter({ apiKey: gateway.key, serverURL: `${gateway.url}/v1`, retryConfig: { strategy: 'none' } });
});
afterAll(async () => {
  await gateway?.close();
  await replay?.close();
});
beforeEach(() => replay.reset());

type Json = Record<string, unknown>;

async function ask(file: string, model: string, stream: boolean): Promise<{ status: number; body?: Json; chunks?: Json[] }> {
  replay.play(recording(`openai/${file}`));
  const response = await sendJson(gateway, gateway.key, 'POST', '/v1/chat/completions', { model, messages: [{ role: 'user', content: 'x' }], stream });
  if (!stream || response.status !== 200) return { status: response.status, body: (await response.json()) as Json };
  const events = await readSseEvents(response);
  return { status: 200, chunks: events.filter((event) => event.data !== '[DONE]').map((event) => JSON.parse(event.data) as Json) };
}

/**
 * An answer without what differs by design: the gateway's ids and clock, the model id (two
 * catalog entries here), the backend fingerprint (null when translated) and an error's wording
 * (it names the provider).
 */
function comparable(body: Json): Json {
  const { id: _id, created: _created, model: _model, system_fingerprint: _fingerprint, error, ...rest } = body;
  if (!error) return rest;
  const { code, status, type } = error as Json;
  return { ...rest, error: { code, status, type } };
}

/** A stream folded as OpenRouter's and OpenAI's helpers fold it: text joined, tool calls and reasoning blocks merged by index. */
function fold(chunks: Json[]): Json {
  const message: Json = {};
  const calls: Json[] = [];
  const details: Json[] = [];
  let finish: unknown;
  let usage: unknown;
  let error: unknown;
  for (const chunk of chunks) {
    if (chunk.usage) usage = chunk.usage;
    if (chunk.error) error = chunk.error;
    const choice = (chunk.choices as Json[])[0];
    if (!choice) continue;
    if (choice.finish_reason) finish = choice.finish_reason;
    const delta = choice.delta as Json;
    for (const field of ['role', 'annotations'] as const) if (delta[field] !== undefined) message[field] = delta[field];
    for (const field of ['content', 'reasoning', 'refusal'] as const) {
      if (typeof delta[field] === 'string') message[field] = ((message[field] as string | undefined) ?? '') + (delta[field] as string);
    }
    for (const detail of (delta.reasoning_details as Json[] | undefined) ?? []) {
      const index = detail.index as number;
      if (details[index]) details[index]!.text = (details[index]!.text as string) + (detail.text as string);
      else details[index] = { ...detail };
    }
    for (const call of (delta.tool_calls as Json[] | undefined) ?? []) {
      const index = call.index as number;
      const fn = call.function as Json;
      const merged = (calls[index] ??= { function: { name: '', arguments: '' } });
      if (call.id) merged.id = call.id;
      if (call.type) merged.type = call.type;
      const into = merged.function as Json;
      into.name = (into.name as string) + ((fn.name as string | undefined) ?? '');
      into.arguments = (into.arguments as string) + ((fn.arguments as string | undefined) ?? '');
    }
  }
  if (details.length > 0) message.reasoning_details = details;
  if (calls.length > 0) message.tool_calls = calls;
  return { message, finish, usage, error };
}

describe.each(answers)('%s', (file) => {
  const stream = file.endsWith('.txt');

  it('reaches a Chat Completions client the same relayed as translated', async () => {
    const translated = await ask(file, 'rec/openai', stream);
    const relayed = await ask(file, 'rec/openai-native', stream);
    expect(replay.requests.map((request) => request.url)).toEqual(['/v1/chat/completions', '/v1/chat/completions']);
    expect(relayed.status).toBe(translated.status);
    if (!translated.chunks) {
      expect(comparable(relayed.body!)).toMatchObject(comparable(translated.body!));
      if (translated.status === 200) {
        // A field OpenRouter's SDK requires, whoever answered.
        expect(relayed.body).toHaveProperty('system_fingerprint');
        const message = (relayed.body!.choices as Json[])[0]!.message as Json;
        expect(message).not.toHaveProperty('reasoning_content');
        expect(relayed.body).not.toHaveProperty('citations');
        expect(message.content === null || typeof message.content === 'string').toBe(true);
      }
      return;
    }
    const reference = fold(translated.chunks);
    const folded = fold(relayed.chunks!);
    const { error: referenceError, ...referenceRest } = reference;
    const { error: relayedError, ...relayedRest } = folded;
    expect(relayedRest).toMatchObject(referenceRest);
    if (referenceError) expect(relayedError).toMatchObject({ code: (referenceError as Json).code, status: (referenceError as Json).status });
    // Each chunk as OpenAI's stream helper needs it: the role first, every tool call with its index.
    const deltas = relayed.chunks!.flatMap((chunk) => (chunk.choices as Json[]).map((choice) => choice.delta as Json));
    expect(deltas[0]?.role).toBe('assistant');
    for (const delta of deltas) {
      expect(delta).not.toHaveProperty('reasoning_content');
      if (delta.content !== undefined) expect(typeof delta.content).toBe('string');
      for (const call of (delta.tool_calls as Json[] | undefined) ?? []) expect(typeof call.index).toBe('number');
    }
    for (const chunk of relayed.chunks!) {
      expect(chunk.object).toBe('chat.completion.chunk');
      expect(chunk).not.toHaveProperty('citations');
    }
  });

  it.runIf(stream && !file.includes('error'))("is read by the openai SDK's stream helper when relayed", async () => {
    replay.play(recording(`openai/${file}`));
    const completion = await openai.chat.completions.stream({ model: 'rec/openai-native', messages: [{ role: 'user', content: 'x' }] }).finalChatCompletion();
    const message = completion.choices[0]!.message;
    expect(typeof message.content === 'string' || (message.tool_calls?.length ?? 0) > 0).toBe(true);
  });

  it.runIf(!stream && !file.includes('error'))("passes @openrouter/sdk's response validation in chat.send when relayed", async () => {
    replay.play(recording(`openai/${file}`));
    const result = await openrouter.chat.send({ chatRequest: { model: 'rec/openai-native', messages: [{ role: 'user', content: 'x' }], stream: false } });
    if (!('choices' in result)) throw new Error('expected a complete chat result');
    expect(result.model).toBe('rec/openai-native');
    expect(result.choices).toHaveLength(1);
  });
});
