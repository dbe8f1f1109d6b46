import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator } from './start-simulator.js';
import type { Simulator } from './simulator-types.js';

let simulator: Simulator;
beforeAll(async () => {
  simulator = await startSimulator({ apiKey: 'k', videoDurationMs: 200, videoPollLatencyMs: 60 });
});
afterAll(async () => {
  await simulator.close();
});
beforeEach(() => simulator.reset());

const openai = (path: string, init: RequestInit = {}) =>
  fetch(`${simulator.baseUrls.openai}${path}`, { ...init, headers: { authorization: 'Bearer k', 'content-type': 'application/json', ...init.headers } });
const gemini = (path: string, init: RequestInit = {}) =>
  fetch(`${simulator.baseUrls.gemini}${path}`, { ...init, redirect: 'manual', headers: { 'x-goog-api-key': 'k', 'content-type': 'application/json', ...init.headers } });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('simulator: OpenAI Videos API', () => {
  it('runs a job from queued through in_progress to completed, and serves its bytes', async () => {
    const created = await openai('/videos', { method: 'POST', body: JSON.stringify({ model: 'sora-2', prompt: 'a cat [[sim:video_ms=1000]]', seconds: '8', size: '1280x720' }) });
    expect(created.status).toBe(200);
    const job = (await created.json()) as Record<string, unknown>;
    expect(job).toMatchObject({ object: 'video', model: 'sora-2', status: 'queued', progress: 0, seconds: '8', size: '1280x720' });
    expect((await openai(`/videos/${job.id}/content`)).status).toBe(404);
    // Poll the way a client does: the job must pass through in_progress with a growing progress
    // and end completed. Waiting on state rather than on fixed sleeps keeps this true on a busy
    // machine, where a fixed 100 ms sleep can overshoot the whole job.
    const seen: Array<{ status: string; progress: number }> = [];
    let polls = 0;
    for (const deadline = Date.now() + 10_000; Date.now() < deadline; ) {
      await sleep(40);
      polls += 1;
      const state = (await (await openai(`/videos/${job.id}`)).json()) as { status: string; progress: number; error: unknown };
      seen.push(state);
      if (state.status === 'completed') {
        expect(state).toMatchObject({ progress: 100, error: null });
        break;
      }
    }
    expect(seen.at(-1)?.status).toBe('completed');
    const running = seen.filter((state) => state.status === 'in_progress');
    expect(running.length).toBeGreaterThan(0);
    expect(running.every((state) => state.progress > 0 && state.progress < 100)).toBe(true);
    const content = await openai(`/videos/${job.id}/content`);
    expect(content.headers.get('content-type')).toBe('video/mp4');
    const bytes = Buffer.from(await content.arrayBuffer());
    expect(bytes.readUInt32BE(0)).toBe(24);
    expect(bytes.subarray(4, 12).toString('latin1')).toBe('ftypisom');
    expect(simulator.stats().videos).toMatchObject({ submissions: 1, accepted: 1, polls, downloads: 1, maxConcurrentPolls: 1 });
  });

  it('fails jobs on request, refuses submissions on request, and checks the body and key', async () => {
    const failing = (await (await openai('/videos', { method: 'POST', body: JSON.stringify({ prompt: 'x [[sim:fail,video_ms=0]]' }) })).json()) as { id: string };
    expect(await (await openai(`/videos/${failing.id}`)).json()).toMatchObject({ status: 'failed', error: { code: 'video_generation_failed' } });
    const refused = await openai('/videos', { method: 'POST', body: JSON.stringify({ prompt: 'x [[sim:status=429,retry_after=2]]' }) });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('2');
    expect((await openai('/videos', { method: 'POST', body: JSON.stringify({ prompt: 'x', seconds: 8 }) })).status).toBe(400);
    expect((await openai('/videos', { method: 'POST', body: JSON.stringify({ prompt: 'x [[sim:colour=red]]' }) })).status).toBe(400);
    expect((await openai('/videos', { method: 'POST', headers: { authorization: 'Bearer wrong' }, body: '{"prompt":"x"}' })).status).toBe(401);
    expect(simulator.stats().videos).toMatchObject({ submissions: 4, accepted: 1 });
  });

  it('counts overlapping polls of one job, and applies fault rules to polls', async () => {
    const job = (await (await openai('/videos', { method: 'POST', body: JSON.stringify({ prompt: 'x' }) })).json()) as { id: string };
    await Promise.all([openai(`/videos/${job.id}`), openai(`/videos/${job.id}`), openai(`/videos/${job.id}`)]);
    expect(simulator.stats().videos!.jobs[job.id]).toMatchObject({ polls: 3, maxConcurrentPolls: 3 });
    simulator.setFault({ match: { protocol: 'openai' }, fault: { status: 503 }, times: 1 });
    expect((await openai(`/videos/${job.id}`)).status).toBe(503);
    expect((await openai(`/videos/${job.id}`)).status).toBe(200);
  });
});

describe('simulator: Veo long-running operations', () => {
  it('answers an operation, reports it done with a file URI, and redirects the download to storage', async () => {
    const created = await gemini('/models/veo-3:predictLongRunning', {
      method: 'POST',
      body: JSON.stringify({ instances: [{ prompt: 'waves' }], parameters: { durationSeconds: 8, resolution: '720p', aspectRatio: '16:9' } }),
    });
    const { name } = (await created.json()) as { name: string };
    expect(name).toMatch(/^models\/veo-3\/operations\//);
    expect(await (await gemini(`/${name}`)).json()).toMatchObject({ name, done: false });
    await sleep(260);
    const done = (await (await gemini(`/${name}`)).json()) as { done: boolean; response: { generateVideoResponse: { generatedSamples: Array<{ video: { uri: string } }> } } };
    expect(done.done).toBe(true);
    const uri = done.response.generateVideoResponse.generatedSamples[0].video.uri;
    const redirect = await fetch(uri, { redirect: 'manual', headers: { 'x-goog-api-key': 'k' } });
    expect(redirect.status).toBe(302);
    const storage = await fetch(new URL(redirect.headers.get('location')!, uri));
    expect(storage.status).toBe(200);
    expect(Buffer.from(await storage.arrayBuffer()).subarray(4, 8).toString('latin1')).toBe('ftyp');
    expect(simulator.stats().videos).toMatchObject({ submissions: 1, downloads: 1, keyOnStorage: 0 });
  });

  it('reports a failed operation as done with an error, and refuses a bad key the Gemini way', async () => {
    const { name } = (await (await gemini('/models/veo-3:predictLongRunning', { method: 'POST', body: JSON.stringify({ instances: [{ prompt: 'x [[sim:fail_at=0]]' }] }) })).json()) as { name: string };
    expect(await (await gemini(`/${name}`)).json()).toMatchObject({ done: true, error: { status: 'INTERNAL' } });
    const badKey = await gemini('/models/veo-3:predictLongRunning', { method: 'POST', headers: { 'x-goog-api-key': 'nope' }, body: '{}' });
    expect(badKey.status).toBe(400);
    expect((await gemini('/models/veo-3:predictLongRunning', { method: 'POST', body: JSON.stringify({ instances: [{}] }) })).status).toBe(400);
  });
});
