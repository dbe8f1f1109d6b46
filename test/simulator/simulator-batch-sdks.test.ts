import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI, { toFile } from 'openai';
import { startSimulator, type Simulator } from '@switchyard/simulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** The simulator's batch APIs driven by the vendors' own SDKs, default settings, by base URL. */
describe('simulator batch APIs through the vendor SDKs', () => {
  let simulator: Simulator;
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  beforeAll(async () => {
    simulator = await startSimulator({ apiKey: 'k', batchDurationMs: 100 });
  });
  afterAll(async () => {
    await simulator?.close();
  });

  it('OpenAI: files.create, batches.create, batches.retrieve until completed, files.content', async () => {
    const client = new OpenAI({ apiKey: 'k', baseURL: simulator.baseUrls.openai, maxRetries: 0 });
    const line = { custom_id: 'a', method: 'POST', url: '/v1/chat/completions', body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] } };
    const file = await client.files.create({ file: await toFile(Buffer.from(`${JSON.stringify(line)}\n`), 'in.jsonl'), purpose: 'batch' });
    let batch = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    while (batch.status !== 'completed') {
      await sleep(50);
      batch = await client.batches.retrieve(batch.id);
    }
    const output = (await (await client.files.content(batch.output_file_id!)).text()).trim().split('\n').map((text) => JSON.parse(text));
    expect(output[0]).toMatchObject({ custom_id: 'a', response: { status_code: 200, body: { object: 'chat.completion' } } });
  });

  it('Anthropic: messages.batches.create, retrieve until ended, results', async () => {
    const client = new Anthropic({ apiKey: 'k', baseURL: simulator.baseUrls.anthropic, maxRetries: 0 });
    let batch = await client.messages.batches.create({ requests: [{ custom_id: 'a', params: { model: 'claude-x', max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] } }] });
    while (batch.processing_status !== 'ended') {
      await sleep(50);
      batch = await client.messages.batches.retrieve(batch.id);
    }
    const results = [];
    for await (const result of await client.messages.batches.results(batch.id)) results.push(result);
    expect(results).toMatchObject([{ custom_id: 'a', result: { type: 'succeeded', message: { type: 'message' } } }]);
  });

  it('Gemini: batches.create with inline requests, batches.get until succeeded, inlined responses', async () => {
    const client = new GoogleGenAI({ apiKey: 'k', httpOptions: { baseUrl: simulator.baseUrls.gemini.replace(/\/v1beta$/, '') } });
    let job = await client.batches.create({ model: 'gemini-2.5-flash', src: [{ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }, { contents: [{ role: 'user', parts: [{ text: 'there' }] }] }] });
    expect(job.name).toMatch(/^batches\//);
    while (job.state !== 'JOB_STATE_SUCCEEDED') {
      await sleep(50);
      job = await client.batches.get({ name: job.name! });
    }
    expect(job.dest?.inlinedResponses).toHaveLength(2);
    expect(job.dest!.inlinedResponses![0].response!.candidates![0].content!.parts![0].text!.length).toBeGreaterThan(0);
  });
});
