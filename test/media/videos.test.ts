import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { testDatabases } from '../helpers/test-databases.js';
import { driveUntilDone, jsonRequest, readAccountMoney, startVideoGateway, type VideoGateway } from './video-gateway.js';

const NANO = 1_000_000_000n;
const usd = (amount: number) => BigInt(Math.round(amount * 1e9));

describe.each(testDatabases())('videos on $name', ({ url }) => {
  let gateway: VideoGateway;
  let client: OpenAI;

  beforeAll(async () => {
    gateway = await startVideoGateway({ databaseUrl: url, credits: 100 });
    client = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  });
  afterAll(async () => {
    await gateway?.close();
  });
  beforeEach(() => {
    gateway.simulator.reset();
  });

  const post = (body: unknown, headers: Record<string, string> = {}, key = gateway.key) => jsonRequest(gateway, key, 'POST', '/v1/videos', body, headers);
  const get = (path: string, key = gateway.key) => jsonRequest(gateway, key, 'GET', path);

  it('lists the video models with their durations, frames, image input and prices', async () => {
    const response = await fetch(`${gateway.url}/v1/videos/models`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { data: Array<Record<string, any>> };
    expect(body.data.map((model) => model.id)).toEqual(['sim/sora', 'sim/veo', 'sim/both']);
    const sora = body.data[0];
    expect(sora).toMatchObject({ durations: [4, 8, 12], sizes: ['720x1280', '1280x720'], resolutions: [], aspect_ratios: [], image_input: true, default_seconds: 4 });
    expect(sora.pricing).toEqual({ video_second: 0.1, currency: 'USD' });
    expect(sora.providers).toEqual([{ provider: 'sim-openai', provider_name: 'Sim OpenAI', price_per_second: 0.1, status: 'available' }]);
    expect(body.data[1]).toMatchObject({ resolutions: ['720p', '1080p'], aspect_ratios: ['16:9', '9:16'], image_input: false, pricing: { video_second: 0.35 } });
    expect(body.data[2].pricing.video_second).toBe(0.15);
  });

  it('quotes exactly what POST /videos reserves, and charges the actual cost once on completion (OpenAI SDK end to end)', async () => {
    const body = { model: 'sim/sora', prompt: 'a lighthouse at dusk', seconds: '8', size: '1280x720' };
    const quote = await jsonRequest(gateway, gateway.key, 'POST', '/v1/videos/quote', body);
    expect(quote.status).toBe(200);
    expect(await quote.json()).toEqual({ data: { amount: 0.8, currency: 'USD' } });
    const anonymous = await fetch(`${gateway.url}/v1/videos/quote`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(await anonymous.json()).toEqual({ data: { amount: 0.8, currency: 'USD' } });

    const before = await readAccountMoney(gateway, gateway.accountId);
    const video = await client.videos.create({ model: 'sim/sora' as never, prompt: 'a lighthouse at dusk', seconds: '8', size: '1280x720' });
    expect(video.id).toMatch(/^video_/);
    expect(video.status).toBe('queued');
    const reserved = await readAccountMoney(gateway, gateway.accountId);
    expect(reserved.reserved - before.reserved).toBe(usd(0.8));
    expect(gateway.simulator.stats().videos).toMatchObject({ submissions: 1, accepted: 1 });

    const pending = await client.videos.retrieve(video.id);
    expect(['queued', 'in_progress']).toContain(pending.status);
    expect(await driveUntilDone(gateway, video.id)).toBe('completed');

    const done = await client.videos.retrieve(video.id);
    expect(done).toMatchObject({ id: video.id, status: 'completed', progress: 100, seconds: '8', size: '1280x720' });
    const raw = (await (await get(`/v1/videos/${video.id}`)).json()) as { data: Record<string, unknown> };
    expect(raw.data).toMatchObject({ id: video.id, status: 'completed', progress: 100, model: 'sim/sora', error: null, cost: 0.8, urls: [`/v1/videos/${video.id}/content`] });
    expect(typeof raw.data.completed_at).toBe('string');

    const content = await client.videos.downloadContent(video.id);
    expect(content.headers.get('content-type')).toBe('video/mp4');
    const bytes = Buffer.from(await content.arrayBuffer());
    expect(bytes.subarray(4, 8).toString('latin1')).toBe('ftyp');

    const after = await readAccountMoney(gateway, gateway.accountId);
    expect(after.reserved).toBe(before.reserved);
    expect(after.usage - before.usage).toBe(usd(0.8));
    // Polling on after the end changes nothing: settled exactly once.
    gateway.clock.advance(60_000);
    await gateway.test.context.tasks.runOnce();
    expect((await readAccountMoney(gateway, gateway.accountId)).usage - before.usage).toBe(usd(0.8));
    expect(gateway.simulator.stats().videos).toMatchObject({ submissions: 1, accepted: 1, downloads: 1 });
  });

  it('runs a Veo operation end to end: resolution and aspect ratio, redirect download without the key', async () => {
    const body = { model: 'sim/veo', prompt: 'waves', seconds: 6, resolution: '720p', aspect_ratio: '16:9' };
    const quote = (await (await jsonRequest(gateway, gateway.key, 'POST', '/v1/videos/quote', body)).json()) as { data: { amount: number } };
    expect(quote.data.amount).toBe(2.1);
    const before = await readAccountMoney(gateway, gateway.accountId);
    const created = await post(body);
    expect(created.status).toBe(202);
    const answer = (await created.json()) as { data: Record<string, string> };
    expect(answer.data).toEqual({ id: answer.data.id, status: 'queued', model: 'sim/veo', created_at: answer.data.created_at, polling_url: `/v1/videos/${answer.data.id}` });
    expect(created.headers.get('x-request-id')).toMatch(/^req_/);
    expect((await readAccountMoney(gateway, gateway.accountId)).reserved - before.reserved).toBe(usd(2.1));

    expect(await driveUntilDone(gateway, answer.data.id)).toBe('completed');
    const content = await get(`/v1/videos/${answer.data.id}/content`);
    expect(content.status).toBe(200);
    expect(Buffer.from(await content.arrayBuffer()).subarray(4, 8).toString('latin1')).toBe('ftyp');
    const stats = gateway.simulator.stats().videos!;
    expect(stats).toMatchObject({ submissions: 1, downloads: 1, keyOnStorage: 0 });
    const after = await readAccountMoney(gateway, gateway.accountId);
    expect(after.usage - before.usage).toBe(usd(2.1));
    expect(after.reserved).toBe(before.reserved);

    // The finished task is in the request log under the creating request's id.
    const logged = await get(`/v1/requests/${created.headers.get('x-request-id')}`);
    expect(logged.status).toBe(200);
    expect(((await logged.json()) as { data: Record<string, unknown> }).data).toMatchObject({ cost: 2.1, model: 'sim/veo', provider: 'sim-gemini', endpoint: '/videos', status: 'completed' });
  });

  it('refuses values outside what /videos/models lists, unknown fields, and non-video models', async () => {
    const cases: Array<[unknown, number, string | null]> = [
      [{ model: 'sim/sora', prompt: 'x', seconds: 5 }, 400, 'seconds'],
      [{ model: 'sim/sora', prompt: 'x', seconds: 'eight' }, 400, 'seconds'],
      [{ model: 'sim/sora', prompt: 'x', seconds: 4, size: '640x480' }, 400, 'size'],
      [{ model: 'sim/sora', prompt: 'x', seconds: 4, resolution: '720p' }, 400, 'resolution'],
      [{ model: 'sim/veo', prompt: 'x', seconds: 4, aspect_ratio: '4:3' }, 400, 'aspect_ratio'],
      [{ model: 'sim/veo', prompt: 'x', seconds: 4, image_url: 'https://example.com/a.png' }, 400, 'image_url'],
      [{ model: 'sim/sora', prompt: 'x', seconds: 4, fps: 24 }, 400, 'fps'],
      [{ prompt: 'x', seconds: 4 }, 400, 'model'],
      [{ model: 'sim/chat', prompt: 'x', seconds: 4 }, 503, null],
      [{ model: 'sim/nothing', prompt: 'x', seconds: 4 }, 503, null],
    ];
    for (const [body, status, param] of cases) {
      for (const path of ['/v1/videos', '/v1/videos/quote']) {
        const response = await jsonRequest(gateway, gateway.key, 'POST', path, body);
        const error = ((await response.json()) as { error: { code: string; param: string | null; message: string } }).error;
        expect({ path, body, status: response.status }).toEqual({ path, body, status });
        if (param) expect(error).toMatchObject({ code: 'invalid_request', param });
        else expect(error.code).toBe('no_available_provider');
      }
    }
    expect(gateway.simulator.stats().videos!.submissions).toBe(0);
    expect((await readAccountMoney(gateway, gateway.accountId)).reserved).toBe(0n);
  });

  it('releases everything when the provider fails the job', async () => {
    const before = await readAccountMoney(gateway, gateway.accountId);
    const created = (await (await post({ model: 'sim/sora', prompt: 'doomed [[sim:fail_at=50]]', seconds: 4 })).json()) as { data: { id: string } };
    expect(await driveUntilDone(gateway, created.data.id)).toBe('failed');
    const task = (await (await get(`/v1/videos/${created.data.id}`)).json()) as { data: Record<string, unknown>; error: unknown };
    expect(task.data).toMatchObject({ status: 'failed', cost: 0, urls: [] });
    expect(String(task.data.error)).toContain('Simulated video generation failure');
    expect(task.error).toMatchObject({ code: 'video_generation_failed' });
    expect((await get(`/v1/videos/${created.data.id}/content`)).status).toBe(404);
    const after = await readAccountMoney(gateway, gateway.accountId);
    expect(after).toEqual(before);
  });

  it('fails a task that outlives its maximum age and releases its reservation (injected clock)', async () => {
    const before = await readAccountMoney(gateway, gateway.accountId);
    const created = (await (await post({ model: 'sim/veo', prompt: 'forever [[sim:video_ms=100000000]]', seconds: 8, resolution: '1080p', aspect_ratio: '9:16' })).json()) as { data: { id: string } };
    expect((await readAccountMoney(gateway, gateway.accountId)).reserved - before.reserved).toBe(usd(2.8));
    gateway.clock.advance(1_000);
    await gateway.test.context.tasks.runOnce();
    expect((await gateway.test.context.tasks.find(gateway.accountId, created.data.id))!.status).not.toBe('failed');
    gateway.clock.advance(2 * 60 * 60 * 1000);
    await gateway.test.context.tasks.runOnce();
    const task = (await (await get(`/v1/videos/${created.data.id}`)).json()) as { data: Record<string, unknown> };
    expect(task.data).toMatchObject({ status: 'failed', cost: 0 });
    expect(String(task.data.error)).toContain('2 h');
    expect(await readAccountMoney(gateway, gateway.accountId)).toEqual(before);
  });

  it('keeps polling through a provider outage and settles once when it is back', async () => {
    const before = await readAccountMoney(gateway, gateway.accountId);
    const created = (await (await post({ model: 'sim/sora', prompt: 'storm', seconds: 4 })).json()) as { data: { id: string } };
    gateway.simulator.setFault({ match: { protocol: 'openai', model: 'sora-sim' }, fault: { status: 503 } });
    for (let round = 0; round < 4; round += 1) {
      gateway.clock.advance(5 * 60 * 1000);
      await gateway.test.context.tasks.runOnce();
    }
    const during = await gateway.test.context.tasks.find(gateway.accountId, created.data.id);
    expect(during!.status).not.toBe('failed');
    expect(during!.attempts).toBeGreaterThanOrEqual(3);
    gateway.simulator.clearFaults();
    expect(await driveUntilDone(gateway, created.data.id, { stepMs: 120_000 })).toBe('completed');
    const after = await readAccountMoney(gateway, gateway.accountId);
    expect(after.usage - before.usage).toBe(usd(0.4));
    expect(after.reserved).toBe(before.reserved);
    expect(gateway.simulator.stats().videos!.submissions).toBe(1);
  });

  it('answers the same task for the same Idempotency-Key, with one charge and one submission', async () => {
    const body = { model: 'sim/sora', prompt: 'same thing twice', seconds: 4 };
    const before = await readAccountMoney(gateway, gateway.accountId);
    const first = await post(body, { 'idempotency-key': 'key-1' });
    const second = await post(body, { 'idempotency-key': 'key-1' });
    expect(first.status).toBe(202);
    expect(second.status).toBe(202);
    const [firstBody, secondBody] = [await first.json(), await second.json()];
    expect(secondBody).toEqual(firstBody);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect((await readAccountMoney(gateway, gateway.accountId)).reserved - before.reserved).toBe(usd(0.4));
    // Concurrent requests with one key: still one task.
    const racing = await Promise.all([1, 2, 3].map(() => post(body, { 'idempotency-key': 'key-2' }).then((response) => response.json() as Promise<{ data: { id: string } }>)));
    expect(new Set(racing.map((answer) => answer.data.id)).size).toBe(1);
    expect(gateway.simulator.stats().videos).toMatchObject({ submissions: 2, accepted: 2 });
    expect((await readAccountMoney(gateway, gateway.accountId)).reserved - before.reserved).toBe(usd(0.8));
    // The same key with another request is a mistake, said as such.
    const other = await post({ ...body, seconds: 8 }, { 'idempotency-key': 'key-1' });
    expect(other.status).toBe(400);
    expect(((await other.json()) as { error: { param: string } }).error.param).toBe('Idempotency-Key');
    // Another account's key space is its own.
    const stranger = await gateway.test.createAccount({ credits: 5 });
    const theirs = await post(body, { 'idempotency-key': 'key-1' }, stranger.key);
    expect(((await theirs.json()) as { data: { id: string } }).data.id).not.toBe((firstBody as { data: { id: string } }).data.id);
    await driveUntilDone(gateway, (firstBody as { data: { id: string } }).data.id);
  });

  it('keeps tasks private to their account', async () => {
    const created = (await (await post({ model: 'sim/sora', prompt: 'mine', seconds: 4 })).json()) as { data: { id: string } };
    expect(await driveUntilDone(gateway, created.data.id)).toBe('completed');
    const stranger = await gateway.test.createAccount({ credits: 5 });
    for (const path of [`/v1/videos/${created.data.id}`, `/v1/videos/${created.data.id}/content`, '/v1/videos/video_unknown']) {
      const response = await get(path, stranger.key);
      expect(response.status).toBe(404);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('not_found');
    }
    const strangerClient = new OpenAI({ apiKey: stranger.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    await expect(strangerClient.videos.retrieve(created.data.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    expect((await get(`/v1/videos/${created.data.id}`)).status).toBe(200);
    expect((await jsonRequest(gateway, 'sy_invalid', 'GET', `/v1/videos/${created.data.id}`)).status).toBe(401);
  });

  it('refuses with 402 when the quote exceeds the balance, submitting nothing', async () => {
    const poor = await gateway.test.createAccount({ credits: 0.5 });
    const response = await post({ model: 'sim/sora', prompt: 'too dear', seconds: 8 }, {}, poor.key);
    expect(response.status).toBe(402);
    expect(gateway.simulator.stats().videos!.submissions).toBe(0);
    expect(await readAccountMoney(gateway, poor.accountId)).toMatchObject({ reserved: 0n, usage: 0n });
  });

  it('frees the reservation and the idempotency key when the provider refuses the submission', async () => {
    const before = await readAccountMoney(gateway, gateway.accountId);
    const refused = await post({ model: 'sim/sora', prompt: 'no [[sim:status=400]]', seconds: 4 }, { 'idempotency-key': 'refused-1' });
    expect(refused.status).toBe(400);
    expect(await readAccountMoney(gateway, gateway.accountId)).toEqual(before);
    gateway.simulator.setFault({ match: { protocol: 'openai', model: 'sora-sim' }, fault: { status: 500 }, times: 1 });
    const failed = await post({ model: 'sim/sora', prompt: 'retry me', seconds: 4 }, { 'idempotency-key': 'refused-2' });
    expect(failed.status).toBe(502);
    const retried = await post({ model: 'sim/sora', prompt: 'retry me', seconds: 4 }, { 'idempotency-key': 'refused-2' });
    expect(retried.status).toBe(202);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    const id = ((await retried.json()) as { data: { id: string } }).data.id;
    expect(await driveUntilDone(gateway, id)).toBe('completed');
    expect((await readAccountMoney(gateway, gateway.accountId)).usage - before.usage).toBe(usd(0.4));
  });

  it('fails over to the next endpoint when the first one is down, at that endpoint’s price', async () => {
    // sim/both: OpenAI (0.15/s) is cheaper and first; take it down for the submission.
    gateway.simulator.setFault({ match: { protocol: 'openai', model: 'sora-both' }, fault: { status: 503 }, times: 1 });
    const before = await readAccountMoney(gateway, gateway.accountId);
    const quote = (await (await jsonRequest(gateway, gateway.key, 'POST', '/v1/videos/quote', { model: 'sim/both', prompt: 'x', seconds: 4 })).json()) as { data: { amount: number } };
    expect(quote.data.amount).toBe(0.6);
    const created = await post({ model: 'sim/both', prompt: 'x', seconds: 4, resolution: '720p', aspect_ratio: '16:9' });
    expect(created.status).toBe(202);
    const id = ((await created.json()) as { data: { id: string } }).data.id;
    expect((await readAccountMoney(gateway, gateway.accountId)).reserved - before.reserved).toBe(usd(0.8));
    expect(await driveUntilDone(gateway, id)).toBe('completed');
    const task = await gateway.test.context.tasks.find(gateway.accountId, id);
    expect(task).toMatchObject({ provider: 'sim-gemini', cost: usd(0.8) });
    expect((await readAccountMoney(gateway, gateway.accountId)).usage - before.usage).toBe(usd(0.8));
  });

  it('takes the OpenAI SDK multipart upload with a reference image', async () => {
    const image = new File([Buffer.from('89504e470d0a1a0a', 'hex')], 'frame.png', { type: 'image/png' });
    const video = await client.videos.create({ model: 'sim/sora' as never, prompt: 'from this frame', seconds: '4', input_reference: image });
    expect(video.status).toBe('queued');
    const task = await gateway.test.context.tasks.find(gateway.accountId, video.id);
    expect(task!.input).toMatchObject({ image_input: true, seconds: 4 });
    await driveUntilDone(gateway, video.id);
  });
});

describe('video amounts', () => {
  it('uses exact integers for fractional prices', () => {
    expect(usd(0.35) * 6n).toBe(2_100_000_000n);
    expect(NANO).toBe(1_000_000_000n);
  });
});
