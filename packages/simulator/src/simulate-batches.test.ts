import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator } from './start-simulator.js';
import type { Simulator } from './simulator-types.js';

let simulator: Simulator;
beforeAll(async () => {
  simulator = await startSimulator({ apiKey: 'k', batchDurationMs: 150 });
});
afterAll(async () => {
  await simulator.close();
});
beforeEach(() => simulator.reset());

const call = (base: string, headers: Record<string, string>) => (path: string, init: RequestInit = {}) =>
  fetch(`${base}${path}`, { ...init, headers: { ...headers, ...(typeof init.body === 'string' ? { 'content-type': 'application/json' } : {}), ...(init.headers as Record<string, string>) } });
const openai = (path: string, init?: RequestInit) => call(simulator.baseUrls.openai, { authorization: 'Bearer k' })(path, init);
const anthropic = (path: string, init?: RequestInit) => call(simulator.baseUrls.anthropic, { 'x-api-key': 'k', 'anthropic-version': '2023-06-01' })(path, init);
const gemini = (path: string, init?: RequestInit) => call(simulator.baseUrls.gemini, { 'x-goog-api-key': 'k' })(path, init);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const json = async (response: Response) => (await response.json()) as Record<string, any>;

async function upload(lines: unknown[]): Promise<Record<string, any>> {
  const form = new FormData();
  form.append('purpose', 'batch');
  form.append('file', new Blob([lines.map((line) => JSON.stringify(line)).join('\n')]), 'in.jsonl');
  return json(await openai('/files', { method: 'POST', body: form }));
}

async function lines(fileId: string): Promise<Array<Record<string, any>>> {
  return (await (await openai(`/files/${fileId}/content`)).text()).trim().split('\n').map((line) => JSON.parse(line) as Record<string, any>);
}

/** Polls until `done` says the object has ended. */
async function pollUntil(read: () => Promise<Record<string, any>>, done: (value: Record<string, any>) => boolean): Promise<Record<string, any>> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const value = await read();
    if (done(value)) return value;
    await sleep(50);
  }
  throw new Error('the batch did not end');
}

describe('simulator: OpenAI Files and Batch', () => {
  it('runs a chat batch from an uploaded file, answering each line as /v1/chat/completions does; a line the live endpoint refuses lands in the error file', async () => {
    const lines = [
      { custom_id: 'a', method: 'POST', url: '/v1/chat/completions', body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }] } },
      { custom_id: 'b', method: 'POST', url: '/v1/chat/completions', body: { model: 'gpt-4o-mini', messages: 'not a list' } },
    ];
    const form = new FormData();
    form.append('purpose', 'batch');
    form.append('file', new Blob([lines.map((line) => JSON.stringify(line)).join('\n')]), 'input.jsonl');
    const file = await json(await openai('/files', { method: 'POST', body: form }));
    expect(file).toMatchObject({ object: 'file', purpose: 'batch', filename: 'input.jsonl', status: 'processed' });
    expect(await json(await openai(`/files/${file.id}`))).toMatchObject({ id: file.id });

    const created = await json(await openai('/batches', { method: 'POST', body: JSON.stringify({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' }) }));
    expect(created).toMatchObject({ object: 'batch', status: 'in_progress', output_file_id: null, request_counts: { total: 2, completed: 0, failed: 0 } });
    const done = await pollUntil(async () => json(await openai(`/batches/${created.id}`)), (batch) => batch.status === 'completed');
    expect(done.request_counts).toEqual({ total: 2, completed: 1, failed: 1 });

    const output = (await (await openai(`/files/${done.output_file_id}/content`)).text()).trim().split('\n').map((line) => JSON.parse(line));
    expect(output).toHaveLength(1);
    expect(output[0]).toMatchObject({ custom_id: 'a', error: null, response: { status_code: 200, body: { object: 'chat.completion' } } });
    const errors = (await (await openai(`/files/${done.error_file_id}/content`)).text()).trim().split('\n').map((line) => JSON.parse(line));
    expect(errors[0]).toMatchObject({ custom_id: 'b', response: { status_code: 400 } });
    expect(errors[0].response.body.error.message).toBeTruthy();
  });

  it('cancels a batch before it is due: cancelling, then cancelled with nothing run and each line in the error file as batch_cancelled; an unknown batch is 404; a wrong key is 401', async () => {
    const file = await upload([{ custom_id: 'a', method: 'POST', url: '/v1/chat/completions', body: { model: 'm', messages: [{ role: 'user', content: 'x' }] } }]);
    const created = await json(await openai('/batches', { method: 'POST', body: JSON.stringify({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' }) }));
    const cancelling = await json(await openai(`/batches/${created.id}/cancel`, { method: 'POST' }));
    expect(cancelling).toMatchObject({ status: 'cancelling', cancelled_at: null, output_file_id: null, request_counts: { completed: 0, failed: 0 } });
    expect(typeof cancelling.cancelling_at).toBe('number');
    const cancelled = await json(await openai(`/batches/${created.id}`));
    expect(cancelled).toMatchObject({ status: 'cancelled', output_file_id: null, request_counts: { total: 1, completed: 0, failed: 0 } });
    expect(typeof cancelled.cancelled_at).toBe('number');
    expect(await lines(cancelled.error_file_id)).toEqual([{ id: expect.any(String), custom_id: 'a', response: null, error: { code: 'batch_cancelled', message: expect.any(String) } }]);
    expect(simulator.received()).toEqual([]);
    expect((await openai('/batches/batch_nope')).status).toBe(404);
    expect((await fetch(`${simulator.baseUrls.openai}/batches/${created.id}`, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
  });

  it('cancels mid-way: the lines answered by then stay in the output file, the line in flight is dropped and ends batch_cancelled', async () => {
    const file = await upload([
      { custom_id: 'quick', method: 'POST', url: '/v1/chat/completions', body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'quick' }] } },
      { custom_id: 'slow', method: 'POST', url: '/v1/chat/completions', body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'slow [[sim:latency=60000]]' }] } },
    ]);
    const created = await json(await openai('/batches', { method: 'POST', body: JSON.stringify({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' }) }));
    const midway = await pollUntil(async () => json(await openai(`/batches/${created.id}`)), (batch) => batch.request_counts.completed === 1);
    expect(midway.status).toBe('in_progress');
    expect((await json(await openai(`/batches/${created.id}/cancel`, { method: 'POST' }))).status).toBe('cancelling');
    const cancelled = await json(await openai(`/batches/${created.id}`));
    expect(cancelled).toMatchObject({ status: 'cancelled', request_counts: { total: 2, completed: 1, failed: 0 } });
    expect(await lines(cancelled.output_file_id)).toMatchObject([{ custom_id: 'quick', error: null, response: { status_code: 200, body: { object: 'chat.completion' } } }]);
    expect(await lines(cancelled.error_file_id)).toMatchObject([{ custom_id: 'slow', response: null, error: { code: 'batch_cancelled' } }]);
    expect((await openai(`/batches/${created.id}/cancel`, { method: 'POST' })).status).toBe(200);
  });

  it('runs an embeddings batch as /v1/embeddings does; a completed batch cannot be cancelled', async () => {
    const file = await upload([
      { custom_id: 'e1', method: 'POST', url: '/v1/embeddings', body: { model: 'text-embedding-3-small', input: ['one two', 'three'] } },
      { custom_id: 'e2', method: 'POST', url: '/v1/embeddings', body: { model: 'text-embedding-3-small', input: 'refused [[sim:status=429]]' } },
    ]);
    const created = await json(await openai('/batches', { method: 'POST', body: JSON.stringify({ input_file_id: file.id, endpoint: '/v1/embeddings', completion_window: '24h' }) }));
    expect(created.endpoint).toBe('/v1/embeddings');
    const done = await pollUntil(async () => json(await openai(`/batches/${created.id}`)), (batch) => batch.status === 'completed');
    expect(done.request_counts).toEqual({ total: 2, completed: 1, failed: 1 });
    const [output] = await lines(done.output_file_id);
    expect(output).toMatchObject({ custom_id: 'e1', response: { status_code: 200, body: { object: 'list', usage: { prompt_tokens: 3 } } } });
    expect(output.response.body.data).toHaveLength(2);
    expect(await lines(done.error_file_id)).toMatchObject([{ custom_id: 'e2', error: null, response: { status_code: 429, body: { error: { message: expect.any(String) } } } }]);
    expect((await openai(`/batches/${created.id}/cancel`, { method: 'POST' })).status).toBe(400);
  });

  it('refuses an endpoint it does not serve and a line without the method POST', async () => {
    const file = await upload([{ custom_id: 'a', url: '/v1/embeddings', body: { model: 'm', input: 'x' } }]);
    expect((await openai('/batches', { method: 'POST', body: JSON.stringify({ input_file_id: file.id, endpoint: '/v1/embeddings', completion_window: '24h' }) })).status).toBe(400);
    expect((await openai('/batches', { method: 'POST', body: JSON.stringify({ input_file_id: file.id, endpoint: '/v1/audio/speech', completion_window: '24h' }) })).status).toBe(400);
  });
});

describe('simulator: OpenAI Batch completion window', () => {
  let short: Simulator;
  beforeAll(async () => {
    short = await startSimulator({ apiKey: 'k', batchDurationMs: 50, batchCompletionWindowMs: 1500 });
  });
  afterAll(async () => {
    await short.close();
  });

  it('expires a batch still running at the end of its window: answered lines in the output file, the one in flight batch_expired in the error file', async () => {
    const send = call(short.baseUrls.openai, { authorization: 'Bearer k' });
    const form = new FormData();
    form.append('purpose', 'batch');
    const input = [
      { custom_id: 'quick', method: 'POST', url: '/v1/chat/completions', body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'quick' }] } },
      { custom_id: 'slow', method: 'POST', url: '/v1/chat/completions', body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'slow [[sim:latency=60000]]' }] } },
    ];
    form.append('file', new Blob([input.map((line) => JSON.stringify(line)).join('\n')]), 'in.jsonl');
    const file = await json(await send('/files', { method: 'POST', body: form }));
    const created = await json(await send('/batches', { method: 'POST', body: JSON.stringify({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' }) }));
    expect(created.expires_at - created.created_at).toBeLessThanOrEqual(2);
    await pollUntil(async () => json(await send(`/batches/${created.id}`)), (batch) => batch.request_counts.completed === 1);
    const expired = await pollUntil(async () => json(await send(`/batches/${created.id}`)), (batch) => batch.status === 'expired');
    expect(expired).toMatchObject({ request_counts: { total: 2, completed: 1, failed: 0 }, cancelled_at: null });
    expect(typeof expired.expired_at).toBe('number');
    const read = async (id: string) => (await (await send(`/files/${id}/content`)).text()).trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(await read(expired.output_file_id)).toMatchObject([{ custom_id: 'quick', response: { status_code: 200 } }]);
    expect(await read(expired.error_file_id)).toMatchObject([{ custom_id: 'slow', response: null, error: { code: 'batch_expired', message: expect.any(String) } }]);
  });
});

describe('simulator: Anthropic Message Batches', () => {
  it('runs requests as /v1/messages does, with results as JSONL at results_url, and lists and cancels', async () => {
    const created = await json(
      await anthropic('/v1/messages/batches', {
        method: 'POST',
        body: JSON.stringify({
          requests: [
            { custom_id: 'ok', params: { model: 'claude-x', max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] } },
            { custom_id: 'bad', params: { model: 'claude-x', messages: [{ role: 'user', content: 'no max_tokens' }] } },
          ],
        }),
      }),
    );
    expect(created).toMatchObject({ type: 'message_batch', processing_status: 'in_progress', request_counts: { processing: 2 }, results_url: null });
    expect(created.id).toMatch(/^msgbatch_/);
    expect((await anthropic(`/v1/messages/batches/${created.id}/results`)).status).toBe(400);
    const done = await pollUntil(async () => json(await anthropic(`/v1/messages/batches/${created.id}`)), (batch) => batch.processing_status === 'ended');
    expect(done.request_counts).toEqual({ processing: 0, succeeded: 1, errored: 1, canceled: 0, expired: 0 });
    const results = (await (await fetch(done.results_url, { headers: { 'x-api-key': 'k' } })).text()).trim().split('\n').map((line) => JSON.parse(line));
    expect(results[0]).toMatchObject({ custom_id: 'ok', result: { type: 'succeeded', message: { type: 'message', role: 'assistant' } } });
    expect(results[1]).toMatchObject({ custom_id: 'bad', result: { type: 'errored', error: { type: 'error', error: { type: 'invalid_request_error' } } } });

    const second = await json(await anthropic('/v1/messages/batches', { method: 'POST', body: JSON.stringify({ requests: [{ custom_id: 'x', params: { model: 'claude-x', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] } }] }) }));
    const canceled = await json(await anthropic(`/v1/messages/batches/${second.id}/cancel`, { method: 'POST' }));
    expect(canceled).toMatchObject({ processing_status: 'ended', request_counts: { canceled: 1 } });
    expect(typeof canceled.cancel_initiated_at).toBe('string');
    const page = await json(await anthropic('/v1/messages/batches?limit=1'));
    expect(page).toMatchObject({ has_more: true, first_id: second.id, last_id: second.id });
    const older = await json(await anthropic(`/v1/messages/batches?limit=1&after_id=${second.id}`));
    expect(older).toMatchObject({ has_more: false, first_id: created.id });
    const newer = await json(await anthropic(`/v1/messages/batches?limit=5&before_id=${created.id}`));
    expect(newer.data.map((batch: { id: string }) => batch.id)).toEqual([second.id]);
    expect((await anthropic('/v1/messages/batches/msgbatch_nope')).status).toBe(404);
  });
});

describe('simulator: Gemini batch mode', () => {
  it('runs inline requests as generateContent does; the operation is polled until done with the inlined responses', async () => {
    const created = await json(
      await gemini('/models/gemini-2.5-flash:batchGenerateContent', {
        method: 'POST',
        body: JSON.stringify({
          batch: {
            displayName: 'job',
            inputConfig: { requests: { requests: [
              { request: { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }, metadata: { key: 'first' } },
              { request: { contents: [{ role: 'user', parts: [{ text: 'there' }] }] }, metadata: { key: 'second' } },
            ] } },
          },
        }),
      }),
    );
    expect(created.name).toMatch(/^batches\//);
    expect(created).toMatchObject({ done: false, metadata: { model: 'models/gemini-2.5-flash', displayName: 'job', state: 'BATCH_STATE_PENDING' } });
    const done = await pollUntil(async () => json(await gemini(`/${created.name}`)), (operation) => operation.done === true);
    expect(done.metadata.state).toBe('BATCH_STATE_SUCCEEDED');
    const responses = done.metadata.output.inlinedResponses.inlinedResponses;
    expect(responses.map((entry: { metadata: { key: string } }) => entry.metadata.key)).toEqual(['first', 'second']);
    for (const entry of responses) expect(entry.response.candidates[0].content.parts[0].text.length).toBeGreaterThan(0);
    expect(done.response.inlinedResponses.inlinedResponses).toHaveLength(2);

    const second = await json(await gemini('/models/gemini-2.5-flash:batchGenerateContent', { method: 'POST', body: JSON.stringify({ batch: { inputConfig: { requests: { requests: [{ request: { contents: [{ parts: [{ text: 'x' }] }] } }] } } } }) }));
    expect((await gemini(`/${second.name}:cancel`, { method: 'POST' })).status).toBe(200);
    expect((await json(await gemini(`/${second.name}`))).metadata.state).toBe('BATCH_STATE_CANCELLED');
    expect((await gemini('/batches/nope')).status).toBe(404);
  });

  it('echoes the batch resource (name, input config) and answers a failed request with a google.rpc.Status whose code is a google.rpc.Code', async () => {
    const inputConfig = { requests: { requests: [
      { request: { contents: [{ role: 'user', parts: [{ text: 'fine' }] }] }, metadata: { key: 'ok' } },
      { request: { contents: [{ role: 'user', parts: [{ text: 'slow down [[sim:status=429]]' }] }] }, metadata: { key: 'limited' } },
    ] } };
    const created = await json(await gemini('/models/gemini-2.5-flash:batchGenerateContent', { method: 'POST', body: JSON.stringify({ batch: { display_name: 'job', input_config: inputConfig } }) }));
    expect(created.metadata).toMatchObject({ name: created.name, inputConfig, priority: '0' });
    const done = await pollUntil(async () => json(await gemini(`/${created.name}`)), (operation) => operation.done === true);
    const [ok, limited] = done.response.inlinedResponses.inlinedResponses;
    expect(ok).toMatchObject({ metadata: { key: 'ok' }, response: { candidates: [{ finishReason: 'STOP' }] } });
    expect(limited.metadata).toEqual({ key: 'limited' });
    expect(limited.response).toBeUndefined();
    expect(limited.error).toMatchObject({ code: 8 });
    expect(typeof limited.error.message).toBe('string');
    expect(done.metadata.batchStats).toMatchObject({ requestCount: '2', successfulRequestCount: '1', failedRequestCount: '1', pendingRequestCount: '0' });
  });
});
