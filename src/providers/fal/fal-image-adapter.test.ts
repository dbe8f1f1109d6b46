import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Agent } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ProviderConfig } from '../../config/types.js';
import type { ImageJobHandle, ImageRequest } from '../../core/image-request.js';
import type { CallContext } from '../provider-adapter.js';
import { closeServer, listenLocally } from '../shared/__fixtures__/listen-locally.js';
import { UpstreamError } from '../shared/upstream-error.js';
import { falImageAdapter } from './fal-image-adapter.js';

type Handler = (request: IncomingMessage, body: string, response: ServerResponse) => void;

let server: Server;
let baseUrl: string;
let handler: Handler;
let seen: Array<{ method?: string; url?: string; authorization?: string; body: string }>;
const dispatcher = new Agent();

beforeAll(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      seen.push({ method: request.method, url: request.url, authorization: request.headers.authorization, body });
      handler(request, body, response);
    });
  });
  baseUrl = await listenLocally(server);
});

afterAll(async () => {
  await closeServer(server);
  await dispatcher.close();
});

beforeEach(() => {
  seen = [];
});

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

function context(): CallContext {
  const provider: ProviderConfig = {
    id: 'fal',
    name: 'fal',
    api: 'fal',
    baseUrl,
    auth: { kind: 'api-key-header', header: 'authorization', scheme: 'Key', key: 'fal-key' },
    enabled: true,
    headers: {},
    timeouts: { connectMs: 1000, firstByteMs: 2000, idleMs: 2000 },
  };
  return { provider, providerModel: 'fal-ai/flux/dev', signal: new AbortController().signal, dispatcher };
}

const request: ImageRequest = { operation: 'generate', prompt: 'a fox', n: 2, size: '512x256', images: [] };
const job = (): ImageJobHandle => ({ id: 'r1', statusUrl: `${baseUrl}/fal-ai/flux/requests/r1/status`, responseUrl: `${baseUrl}/fal-ai/flux/requests/r1` });

describe('falImageAdapter', () => {
  it('submits to {base}/{model id} with a Key header and fal input names', async () => {
    handler = (_request, _body, response) => json(response, 200, { request_id: 'r1', status_url: job().statusUrl, response_url: job().responseUrl });
    const state = await falImageAdapter.start(request, context());
    expect(state).toEqual({ state: 'pending', job: job(), progress: 0 });
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/fal-ai/flux/dev', authorization: 'Key fal-key' });
    expect(JSON.parse(seen[0].body)).toEqual({ prompt: 'a fox', num_images: 2, image_size: { width: 512, height: 256 } });
  });

  it('sends edit inputs as data URIs in image_urls', async () => {
    handler = (_request, _body, response) => json(response, 200, { request_id: 'r1', status_url: job().statusUrl, response_url: job().responseUrl });
    await falImageAdapter.start({ ...request, operation: 'edit', images: [{ bytes: Buffer.from('abc'), contentType: 'image/png' }] }, context());
    expect(JSON.parse(seen[0].body).image_urls).toEqual(['data:image/png;base64,YWJj']);
  });

  it('refuses job URLs outside the base URL origin, so the key never leaves it', async () => {
    handler = (_request, _body, response) => json(response, 200, { request_id: 'r1', status_url: 'https://evil.example/status', response_url: job().responseUrl });
    const error = await falImageAdapter.start(request, context()).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as UpstreamError).retryable).toBe(false);
    await expect(falImageAdapter.poll!({ ...job(), statusUrl: 'http://169.254.169.254/latest' }, context())).rejects.toBeInstanceOf(UpstreamError);
  });

  it('maps IN_QUEUE, IN_PROGRESS and COMPLETED, then reads the images', async () => {
    let status = 'IN_QUEUE';
    handler = (incoming, _body, response) => {
      if (incoming.url?.endsWith('/status')) return json(response, status === 'COMPLETED' ? 200 : 202, { status });
      json(response, 200, { images: [{ url: 'https://v3.fal.media/files/a.png', content_type: 'image/png' }, { url: 'https://v3.fal.media/files/b.png' }] });
    };
    expect(await falImageAdapter.poll!(job(), context())).toMatchObject({ state: 'pending', progress: 0 });
    status = 'IN_PROGRESS';
    expect(await falImageAdapter.poll!(job(), context())).toMatchObject({ state: 'pending', progress: 50 });
    status = 'COMPLETED';
    expect(await falImageAdapter.poll!(job(), context())).toEqual({
      state: 'completed',
      images: [{ url: 'https://v3.fal.media/files/a.png' }, { url: 'https://v3.fal.media/files/b.png' }],
    });
    expect(seen.every((entry) => entry.authorization === 'Key fal-key')).toBe(true);
  });

  it('reports a failed run: COMPLETED with an error, or a 4xx result', async () => {
    handler = (_incoming, _body, response) => json(response, 200, { status: 'COMPLETED', error: 'NSFW content detected' });
    expect(await falImageAdapter.poll!(job(), context())).toEqual({ state: 'failed', error: 'fal: NSFW content detected' });
    handler = (incoming, _body, response) =>
      incoming.url?.endsWith('/status') ? json(response, 200, { status: 'COMPLETED' }) : json(response, 422, { detail: [{ msg: 'image_size too large' }] });
    expect(await falImageAdapter.poll!(job(), context())).toMatchObject({ state: 'failed' });
  });

  it('throws on a 5xx or an unknown status, so the caller polls again later', async () => {
    handler = (_incoming, _body, response) => json(response, 503, { detail: 'busy' });
    await expect(falImageAdapter.poll!(job(), context())).rejects.toMatchObject({ status: 503, retryable: true });
    handler = (_incoming, _body, response) => json(response, 200, { status: 'WEIRD' });
    await expect(falImageAdapter.poll!(job(), context())).rejects.toBeInstanceOf(UpstreamError);
  });

  it('refuses quality, which fal image models do not take', () => {
    expect(falImageAdapter.incapability({ ...request, quality: 'hd' })).toMatchObject({ field: 'quality' });
    expect(falImageAdapter.incapability(request)).toBeUndefined();
  });
});
