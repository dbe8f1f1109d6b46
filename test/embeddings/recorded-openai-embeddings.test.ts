import type OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { recording, type ReplayProvider } from '../helpers/replay-provider.js';
import { useReplayGateway } from '../helpers/use-replay-gateway.js';
import type { SimulatedGateway } from '../helpers/simulated-gateway.js';
import { readMoney, tokenCharge } from './embeddings-gateway.js';
import { encodeFloat32Base64 } from '../../src/api/embeddings/encode-embeddings-response.js';
import { countTextTokens } from '../../src/billing/count-tokens.js';

/** An embedding model on OpenAI's protocol whose provider answers with recordings of real OpenAI traffic. */
function recordedEmbeddingsYaml(replayUrl: string): string {
  return `
limits: {free_daily_requests: 5, requests_per_minute: 0}
providers:
  - {id: rec-openai, name: Recorded OpenAI, api: openai, base_url: "${replayUrl}/v1", api_key: k, timeouts: {connect_ms: 2000, first_byte_ms: 5000, idle_ms: 5000}}
models:
  - id: rec/embed-small
    name: "Recorded: text-embedding-3-small"
    modalities: {input: [text], output: [embeddings]}
    embedding: {dimensions: 1536, output_dimensions: any}
    endpoints:
      - {provider: rec-openai, model: text-embedding-3-small, pricing: {prompt: 0.02}}
`;
}

// vercel/ai's recording of OpenAI text-embedding-3-small for its test values (SOURCES.md).
const recorded = [
  [0.0057293195, -0.012727811, 0.020042092, -0.013437585, 0.022833068],
  [-0.037104916, -0.05178114, -0.008340587, 0.001164541, -0.0035253682],
];
const values = ['sunny day at the beach', 'rainy day in the city'];

describe('recorded OpenAI embeddings answers through the gateway', () => {
  let replay: ReplayProvider;
  let gateway: SimulatedGateway;
  let openai: OpenAI;
  useReplayGateway({ catalogYaml: recordedEmbeddingsYaml }, (started) => ({ replay, gateway, openai } = started));

  it('relays the recorded vectors and charges the recorded 12 tokens × the price', async () => {
    replay.play(recording('openai/embeddings/openai-embedding.json'));
    const before = await readMoney(gateway);
    const answer = await openai.embeddings.create({ model: 'rec/embed-small', input: values, encoding_format: 'float' });
    expect(replay.requests[0].url).toBe('/v1/embeddings');
    expect(replay.requests[0].body).toEqual({ model: 'text-embedding-3-small', input: values });
    expect(answer.data.map((entry) => entry.embedding)).toEqual(recorded);
    expect(answer.usage).toMatchObject({ prompt_tokens: 12, total_tokens: 12 });
    expect((await readMoney(gateway)).usage - before.usage).toBe(tokenCharge(12, 0.02));
  });

  it("encodes the recorded floats as OpenAI's base64 float32 for the SDK's default", async () => {
    replay.play(recording('openai/embeddings/openai-embedding.json'));
    const answer = await openai.embeddings.create({ model: 'rec/embed-small', input: values });
    // The SDK decodes float32: each number is the recorded one at float32 precision.
    expect(answer.data.map((entry) => entry.embedding)).toEqual(recorded.map((vector) => Array.from(new Float32Array(vector))));
    expect(encodeFloat32Base64(recorded[0])).toBe(Buffer.from(new Float32Array(recorded[0]).buffer).toString('base64'));
  });

  it("passes OpenAI's recorded refusal on to the client as a 400 in the envelope, charging nothing", async () => {
    replay.play(recording('openai/embeddings/openai-embedding-token-limit-error.json', 400));
    const before = await readMoney(gateway);
    const error = await openai.embeddings.create({ model: 'rec/embed-small', input: values }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ status: 400 });
    expect((error as { message: string }).message).toContain('max 300000 tokens per request');
    expect((error as { headers: Headers }).headers.get('x-request-id')).toMatch(/^req_/);
    const after = await readMoney(gateway);
    expect(after.usage).toBe(before.usage);
    expect(after.reserved).toBe(0n);
  });

  it('counts the tokens itself where an OpenAI-compatible server reports no usage, marked estimated', async () => {
    const body = JSON.parse(recording('openai/embeddings/openai-embedding.json').body) as Record<string, unknown>;
    delete body.usage;
    replay.play({ status: 200, contentType: 'application/json', body: JSON.stringify(body) });
    const { data: answer, response } = await openai.embeddings.create({ model: 'rec/embed-small', input: values, encoding_format: 'float' }).withResponse();
    // The gateway's own count (o200k BPE), input by input.
    const counted = (await countTextTokens(values[0])) + (await countTextTokens(values[1]));
    expect(counted).toBeGreaterThan(0);
    expect(answer.usage.prompt_tokens).toBe(counted);
    await gateway.test.context.requestLog.flush();
    const row = await gateway.test.context.store.db.selectFrom('requests').selectAll().where('id', '=', response.headers.get('x-request-id')!).executeTakeFirstOrThrow();
    expect(Number(row.prompt_tokens)).toBe(counted);
    expect(Boolean(row.estimated)).toBe(true);
  });
});
