import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildPng, mp3FrameBytes, msPerCharacter } from '@switchyard/simulator';
import { testDatabases } from '../helpers/test-databases.js';
import { call, chargesOf, driveTask, readMoney, startMediaGateway, type MediaGateway } from './media-gateway.js';

const nano = (usd: number) => BigInt(Math.round(usd * 1e9));
const pngOf = (b64: string) => Buffer.from(b64, 'base64');
const isPng = (bytes: Buffer) => bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
const pngSize = (bytes: Buffer) => ({ width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) });
const dataUrl = (bytes: Buffer) => `data:image/png;base64,${bytes.toString('base64')}`;

for (const database of testDatabases()) {
  describe(`speech and images end to end (${database.name})`, () => {
    let gateway: MediaGateway;
    let client: OpenAI;

    beforeAll(async () => {
      gateway = await startMediaGateway({ databaseUrl: database.url });
      client = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    });
    afterAll(() => gateway?.close());

    describe('POST /v1/audio/speech', () => {
      it('answers MP3 through the OpenAI SDK, priced per input character, charged once', async () => {
        const before = await readMoney(gateway);
        const input = 'Hello from the gateway';
        const { data, response } = await client.audio.speech.create({ model: 'sim/tts', voice: 'alloy', input }).withResponse();
        const audio = Buffer.from(await data.arrayBuffer());
        expect(response.headers.get('content-type')).toBe('audio/mpeg');
        const requestId = response.headers.get('x-request-id')!;
        expect(requestId).toMatch(/^req_/);
        expect(audio[0]).toBe(0xff);
        expect(audio.length % mp3FrameBytes).toBe(0);
        // 22 characters × 15 USD per 1M characters, rounded up to the nano-dollar.
        const cost = (22n * nano(15) + 999_999n) / 1_000_000n;
        expect(response.headers.get('x-switchyard-cost')).toBe(String(Number(cost) / 1e9));
        const after = await readMoney(gateway);
        expect(after.usage - before.usage).toBe(cost);
        expect(after.reserved).toBe(0n);
        expect(await chargesOf(gateway, requestId)).toEqual([cost]);
        await gateway.test.context.requestLog.flush();
        const logged = (await (await call(gateway, gateway.key, 'GET', `/v1/requests/${requestId}`)).json()) as { data: { cost: number; endpoint: string; model: string } };
        expect(logged.data).toMatchObject({ cost: Number(cost) / 1e9, endpoint: '/audio/speech', model: 'sim/tts' });
      });

      it('reserves exactly the cost before calling the provider', async () => {
        const reserve = vi.spyOn(gateway.test.context.ledger, 'reserve');
        try {
          await client.audio.speech.create({ model: 'sim/tts', voice: 'nova', input: 'héllo wörld 👋', response_format: 'pcm' });
          // Characters are code points: the emoji counts once.
          expect(reserve.mock.calls.at(-1)![0].amount).toBe((13n * nano(15) + 999_999n) / 1_000_000n);
        } finally {
          reserve.mockRestore();
        }
      });

      it('answers 16-bit PCM as audio/pcm', async () => {
        const response = await call(gateway, gateway.key, 'POST', '/v1/audio/speech', { model: 'sim/tts', voice: 'nova', input: 'four', response_format: 'pcm' });
        expect(response.status).toBe(200);
        expect(response.headers.get('content-type')).toBe('audio/pcm');
        expect(response.headers.get('x-request-id')).toMatch(/^req_/);
        expect((await response.arrayBuffer()).byteLength).toBe(4 * msPerCharacter * 48);
      });

      it('speaks through Gemini TTS as PCM, and refuses MP3 and speed there with a 400 naming the field', async () => {
        const pcm = await call(gateway, gateway.key, 'POST', '/v1/audio/speech', { model: 'sim/gemini-tts', voice: 'Kore', input: 'hi there', response_format: 'pcm' });
        expect(pcm.status).toBe(200);
        expect(pcm.headers.get('content-type')).toBe('audio/pcm');
        expect((await pcm.arrayBuffer()).byteLength).toBe(8 * msPerCharacter * 48);
        const mp3 = await call(gateway, gateway.key, 'POST', '/v1/audio/speech', { model: 'sim/gemini-tts', voice: 'Kore', input: 'hi' });
        expect(mp3.status).toBe(400);
        expect(((await mp3.json()) as { error: { param: string; message: string } }).error).toMatchObject({ param: 'response_format' });
        const speed = await call(gateway, gateway.key, 'POST', '/v1/audio/speech', { model: 'sim/gemini-tts', voice: 'Kore', input: 'hi', response_format: 'pcm', speed: 1.5 });
        expect(((await speed.json()) as { error: { param: string } }).error.param).toBe('speed');
      });

      it.each([
        [{ model: 'sim/tts', voice: 'Kore', input: 'hi' }, 'voice'],
        [{ model: 'sim/tts', voice: 'alloy', input: 'hi', response_format: 'ogg' }, 'response_format'],
        [{ model: 'sim/tts', voice: 'alloy', input: 'hi', speed: 9 }, 'speed'],
        [{ model: 'sim/tts', voice: 'alloy', input: '' }, 'input'],
        [{ model: 'sim/tts', voice: 'alloy', input: 'hi', instructions: 'whisper' }, 'instructions'],
        [{ voice: 'alloy', input: 'hi' }, 'model'],
      ])('refuses %j naming %s, charging nothing', async (body, param) => {
        const before = await readMoney(gateway);
        const response = await call(gateway, gateway.key, 'POST', '/v1/audio/speech', body);
        expect(response.status).toBe(400);
        const error = ((await response.json()) as { error: { code: string; param: string } }).error;
        expect(error).toMatchObject({ code: 'invalid_request', param });
        expect((await readMoney(gateway)).usage).toBe(before.usage);
      });

      it('has no route for a text model or an unknown model (503)', async () => {
        for (const model of ['sim/chat', 'sim/nope']) {
          const response = await call(gateway, gateway.key, 'POST', '/v1/audio/speech', { model, voice: 'alloy', input: 'hi' });
          expect(response.status).toBe(503);
        }
      });
    });

    describe('POST /v1/images/generations and /v1/images/edits', () => {
      it('generates PNGs through the OpenAI SDK, n × the image price, charged once', async () => {
        const before = await readMoney(gateway);
        const { data, response } = await client.images.generate({ model: 'sim/painter', prompt: 'a red fox', n: 2, size: '64x64' }).withResponse();
        expect(data.data).toHaveLength(2);
        const png = pngOf(data.data![0].b64_json!);
        expect(isPng(png)).toBe(true);
        expect(pngSize(png)).toEqual({ width: 64, height: 64 });
        expect(data.usage as unknown).toEqual({ images: 2, cost: 0.08 });
        expect(typeof data.created).toBe('number');
        const after = await readMoney(gateway);
        expect(after.usage - before.usage).toBe(nano(0.08));
        expect(after.reserved).toBe(0n);
        expect(await chargesOf(gateway, response.headers.get('x-request-id')!)).toEqual([nano(0.08)]);
      });

      it('serves url outputs from the gateway, to the owning account only', async () => {
        const response = await call(gateway, gateway.key, 'POST', '/v1/images/generations', { model: 'sim/painter', prompt: 'a blue whale', response_format: 'url', size: '64x64' });
        expect(response.status).toBe(200);
        const body = (await response.json()) as { data: Array<{ url: string }> };
        const url = body.data[0].url;
        expect(url).toMatch(new RegExp(`^${gateway.url}/v1/media/files/`));
        const file = await fetch(url, { headers: { authorization: `Bearer ${gateway.key}` } });
        expect(file.headers.get('content-type')).toBe('image/png');
        expect(isPng(Buffer.from(await file.arrayBuffer()))).toBe(true);
        expect((await fetch(url)).status).toBe(401);
        const other = await gateway.test.createAccount({ credits: 1 });
        expect((await fetch(url, { headers: { authorization: `Bearer ${other.key}` } })).status).toBe(404);
      });

      it('edits an uploaded file through the OpenAI SDK (multipart)', async () => {
        const image = await toFile(buildPng(8, 8, [200, 10, 10]), 'input.png', { type: 'image/png' });
        const result = await client.images.edit({ model: 'sim/painter', prompt: 'make it blue', image, size: '64x64' });
        expect(result.data).toHaveLength(1);
        expect(isPng(pngOf(result.data![0].b64_json!))).toBe(true);
        const two = await client.images.edit({
          model: 'sim/painter',
          prompt: 'merge them',
          image: [await toFile(buildPng(2, 2, [1, 1, 1]), 'a.png', { type: 'image/png' }), await toFile(buildPng(2, 2, [2, 2, 2]), 'b.png', { type: 'image/png' })],
        });
        expect(two.data).toHaveLength(1);
      });

      it('refuses a multipart file that is not an image, and unknown file fields', async () => {
        const form = new FormData();
        form.append('model', 'sim/painter');
        form.append('prompt', 'x');
        form.append('image', new Blob(['not an image'], { type: 'image/png' }), 'fake.png');
        const response = await fetch(`${gateway.url}/v1/images/edits`, { method: 'POST', headers: { authorization: `Bearer ${gateway.key}` }, body: form });
        expect(response.status).toBe(400);
        expect(((await response.json()) as { error: { param: string } }).error.param).toBe('images[0].image_url');
        const mask = new FormData();
        mask.append('model', 'sim/painter');
        mask.append('prompt', 'x');
        mask.append('image', new Blob([buildPng(2, 2, [0, 0, 0])], { type: 'image/png' }), 'a.png');
        mask.append('mask', new Blob([buildPng(2, 2, [0, 0, 0])], { type: 'image/png' }), 'm.png');
        const masked = await fetch(`${gateway.url}/v1/images/edits`, { method: 'POST', headers: { authorization: `Bearer ${gateway.key}` }, body: mask });
        expect(masked.status).toBe(400);
        expect(((await masked.json()) as { error: { param: string } }).error.param).toBe('mask');
      });

      it('bounds image inputs by media.fetch_max_bytes: an upload is 413, a data URL 400', async () => {
        const big = Buffer.concat([buildPng(1, 1, [0, 0, 0]), Buffer.alloc(300_000)]);
        const form = new FormData();
        form.append('model', 'sim/painter');
        form.append('prompt', 'x');
        form.append('image', new Blob([big], { type: 'image/png' }), 'big.png');
        const upload = await fetch(`${gateway.url}/v1/images/edits`, { method: 'POST', headers: { authorization: `Bearer ${gateway.key}` }, body: form });
        expect(upload.status).toBe(413);
        const inline = await call(gateway, gateway.key, 'POST', '/v1/images/edits', { model: 'sim/painter', prompt: 'x', images: [{ image_url: dataUrl(big) }] });
        expect(inline.status).toBe(400);
        expect(((await inline.json()) as { error: { param: string } }).error.param).toBe('images[0].image_url');
      });

      it('edits through fal with the inputs inlined as data URIs', async () => {
        const response = await call(gateway, gateway.key, 'POST', '/v1/images/edits', {
          model: 'sim/flux',
          prompt: 'recolour',
          size: '32x32',
          images: [{ image_url: dataUrl(buildPng(2, 2, [5, 5, 5])) }, { image_url: dataUrl(buildPng(2, 2, [6, 6, 6])) }],
        });
        expect(response.status).toBe(200);
        expect(pngSize(pngOf(((await response.json()) as { data: Array<{ b64_json: string }> }).data[0].b64_json))).toEqual({ width: 32, height: 32 });
      });

      it('edits JSON inputs given as data URLs', async () => {
        const response = await call(gateway, gateway.key, 'POST', '/v1/images/edits', {
          model: 'sim/painter',
          prompt: 'add a hat',
          images: [{ image_url: dataUrl(buildPng(4, 4, [9, 9, 9])) }],
        });
        expect(response.status).toBe(200);
        expect(((await response.json()) as { data: unknown[] }).data).toHaveLength(1);
      });

      it.each([
        ['http://example.com/cat.png', 'https'],
        ['https://127.0.0.1/cat.png', 'private'],
        ['https://localhost/cat.png', 'private'],
        ['https://169.254.169.254/latest/meta-data/', 'private'],
        ['https://[::1]/cat.png', 'private'],
        ['https://[::ffff:10.0.0.1]/cat.png', 'private'],
        ['https://10.0.0.8/cat.png', 'private'],
        ['file:///etc/passwd', 'https'],
        ['data:image/png;base64,bm90IGFuIGltYWdl', 'PNG'],
      ])('refuses the image_url %s before any provider call (SSRF guard)', async (url, words) => {
        const before = gateway.simulator.stats().requests;
        const response = await call(gateway, gateway.key, 'POST', '/v1/images/edits', { model: 'sim/painter', prompt: 'x', images: [{ image_url: url }] });
        expect(response.status).toBe(400);
        const error = ((await response.json()) as { error: { param: string; message: string } }).error;
        expect(error.param).toBe('images[0].image_url');
        expect(error.message).toContain(words);
        expect(gateway.simulator.stats().requests).toBe(before);
      });

      it.each([
        [{ model: 'sim/painter', prompt: 'x', size: '1024x1024' }, 'size', 400],
        [{ model: 'sim/painter', prompt: 'x', n: 5 }, 'n', 400],
        [{ model: 'sim/painter', prompt: 'x', n: 0 }, 'n', 400],
        [{ model: 'sim/painter', prompt: 'x', n: 1.5 }, 'n', 400],
        [{ model: 'sim/painter', prompt: 'x', quality: 'hd' }, 'quality', 400],
        [{ model: 'sim/sketcher', prompt: 'x', quality: 'low' }, 'quality', 400],
        [{ model: 'sim/painter', prompt: 'x', style: 'vivid' }, 'style', 400],
        [{ model: 'sim/painter', prompt: 'x', response_format: 'png' }, 'response_format', 400],
        [{ model: 'sim/painter' }, 'prompt', 400],
        [{ model: 'sim/gemini-image', prompt: 'x', size: '64x64' }, 'size', 400],
      ])('refuses %j naming %s', async (body, param, status) => {
        const response = await call(gateway, gateway.key, 'POST', '/v1/images/generations', body);
        expect(response.status).toBe(status);
        expect(((await response.json()) as { error: { param: string } }).error.param).toBe(param);
      });

      it('has no route for edits on a generation-only model, or images on a text model (503)', async () => {
        const edit = await call(gateway, gateway.key, 'POST', '/v1/images/edits', { model: 'sim/sketcher', prompt: 'x', images: [{ image_url: dataUrl(buildPng(2, 2, [0, 0, 0])) }] });
        expect(edit.status).toBe(503);
        const text = await call(gateway, gateway.key, 'POST', '/v1/images/generations', { model: 'sim/chat', prompt: 'x' });
        expect(text.status).toBe(503);
      });

      it('generates through Gemini image models with aspect_ratio and resolution', async () => {
        const response = await call(gateway, gateway.key, 'POST', '/v1/images/generations', { model: 'sim/gemini-image', prompt: 'a wide sunset', aspect_ratio: '16:9', resolution: '1K', n: 2 });
        expect(response.status).toBe(200);
        const body = (await response.json()) as { data: Array<{ b64_json: string }>; usage: { cost: number } };
        expect(body.data).toHaveLength(2);
        expect(pngSize(pngOf(body.data[0].b64_json))).toEqual({ width: 256, height: 144 });
        expect(body.usage.cost).toBe(0.268);
      });

      it('answers a fal job that finishes within the window synchronously', async () => {
        const before = await readMoney(gateway);
        const result = await client.images.generate({ model: 'sim/flux', prompt: 'a lighthouse [[sim:job_ms=100]]', n: 2, size: '32x32' });
        expect(result.data).toHaveLength(2);
        expect(pngSize(pngOf(result.data![0].b64_json!))).toEqual({ width: 32, height: 32 });
        const after = await readMoney(gateway);
        expect(after.usage - before.usage).toBe(nano(0.05));
        expect(after.reserved).toBe(0n);
      });

      it('fails a fal job that failed, charging nothing', async () => {
        const before = await readMoney(gateway);
        const response = await call(gateway, gateway.key, 'POST', '/v1/images/generations', { model: 'sim/flux', prompt: 'x [[sim:fail]]' });
        expect(response.status).toBe(502);
        const after = await readMoney(gateway);
        expect(after.usage).toBe(before.usage);
        expect(after.reserved).toBe(0n);
      });

      it('routes to the cheaper endpoint first, and fails over when it is down, charging only the one that served', async () => {
        const cheapest = await call(gateway, gateway.key, 'POST', '/v1/images/generations', { model: 'sim/either', prompt: 'x' });
        expect(cheapest.headers.get('x-switchyard-provider')).toBe('sim-openai');
        gateway.simulator.setFault({ match: { protocol: 'openai', model: 'either-sim' }, fault: { status: 503 }, times: 1 });
        const before = await readMoney(gateway);
        const response = await call(gateway, gateway.key, 'POST', '/v1/images/generations', { model: 'sim/either', prompt: 'x' });
        expect(response.status).toBe(200);
        expect(response.headers.get('x-switchyard-provider')).toBe('sim-fal');
        const after = await readMoney(gateway);
        expect(after.usage - before.usage).toBe(nano(0.03));
        expect(after.reserved).toBe(0n);
      });

      it('passes a provider refusal on as 400 without failing over, charging nothing', async () => {
        const before = await readMoney(gateway);
        const response = await call(gateway, gateway.key, 'POST', '/v1/images/generations', { model: 'sim/painter', prompt: 'x [[sim:status=400]]' });
        expect(response.status).toBe(400);
        expect((await readMoney(gateway)).usage).toBe(before.usage);
      });

      it('refuses images beyond the funds with 402, holding nothing', async () => {
        const poor = await gateway.test.createAccount({ credits: 0.05 });
        const response = await call(gateway, poor.key, 'POST', '/v1/images/generations', { model: 'sim/painter', prompt: 'x', n: 2 });
        expect(response.status).toBe(402);
        expect((await readMoney(gateway, poor.accountId)).reserved).toBe(0n);
      });

      it('needs a linked messenger account for a free image model', async () => {
        const response = await call(gateway, gateway.key, 'POST', '/v1/images/generations', { model: 'sim/free-painter:free', prompt: 'x' });
        expect(response.status).toBe(403);
        expect(((await response.json()) as { error: { code: string } }).error.code).toBe('messenger_link_required');
      });
    });

    describe('media catalog and quotes', () => {
      it('lists image operations with their request schemas and prices', async () => {
        const response = await call(gateway, undefined, 'GET', '/v1/media/models');
        const body = (await response.json()) as { data: Array<{ id: string; operations: Array<{ operation: string; path: string; pricing: { image: string }; request_schema: { properties: Record<string, Record<string, unknown>>; required: string[] } }> }> };
        const painter = body.data.find((model) => model.id === 'sim/painter')!;
        expect(painter.operations.map((operation) => operation.operation)).toEqual(['generate', 'edit']);
        const [generate, edit] = painter.operations;
        expect(generate).toMatchObject({ path: '/v1/images/generations', pricing: { image: '0.04' } });
        expect(generate.request_schema.properties.size).toEqual({ type: 'string', enum: ['256x256', '64x64'] });
        expect(generate.request_schema.properties.n).toMatchObject({ type: 'integer', minimum: 1, maximum: 4 });
        expect(generate.request_schema.properties.quality).toEqual({ type: 'string', enum: ['low', 'high'] });
        expect(edit.request_schema.required).toEqual(['model', 'prompt', 'images']);
        expect(body.data.find((model) => model.id === 'sim/sketcher')!.operations.map((operation) => operation.operation)).toEqual(['generate']);
        expect(body.data.some((model) => model.id === 'sim/tts' || model.id === 'sim/chat')).toBe(false);
      });

      it('quotes exactly what the matching request reserves, for generations and edits', async () => {
        const reserve = vi.spyOn(gateway.test.context.ledger, 'reserve');
        try {
          const cases: Array<{ path: string; operation?: string; body: Record<string, unknown> }> = [
            { path: '/v1/images/generations', body: { model: 'sim/painter', prompt: 'x', n: 3, size: '64x64' } },
            { path: '/v1/images/generations', body: { model: 'sim/flux', prompt: 'x', n: 2 } },
            { path: '/v1/images/generations', body: { model: 'sim/either', prompt: 'x' } },
            { path: '/v1/images/edits', operation: 'edit', body: { model: 'sim/painter', prompt: 'x', n: 2, images: [{ image_url: dataUrl(buildPng(2, 2, [0, 0, 0])) }] } },
          ];
          for (const { path, operation, body } of cases) {
            const quote = await call(gateway, gateway.key, 'POST', '/v1/media/quote', operation ? { ...body, operation } : body);
            expect(quote.status).toBe(200);
            const { data } = (await quote.json()) as { data: { amount: number; currency: string } };
            expect(data.currency).toBe('USD');
            reserve.mockClear();
            expect((await call(gateway, gateway.key, 'POST', path, body)).status).toBe(200);
            expect(reserve.mock.calls[0][0].amount).toBe(nano(data.amount));
          }
        } finally {
          reserve.mockRestore();
        }
      });

      it('validates a quote like the request it prices', async () => {
        const bad = await call(gateway, gateway.key, 'POST', '/v1/media/quote', { model: 'sim/painter', prompt: 'x', size: '9x9' });
        expect(((await bad.json()) as { error: { param: string } }).error.param).toBe('size');
        const operation = await call(gateway, gateway.key, 'POST', '/v1/media/quote', { model: 'sim/painter', prompt: 'x', operation: 'upscale' });
        expect(((await operation.json()) as { error: { param: string } }).error.param).toBe('operation');
        const edit = await call(gateway, gateway.key, 'POST', '/v1/media/quote', { model: 'sim/painter', prompt: 'x', operation: 'edit' });
        expect(((await edit.json()) as { error: { param: string } }).error.param).toBe('images');
        expect((await call(gateway, undefined, 'POST', '/v1/media/quote', { model: 'sim/painter', prompt: 'x' })).status).toBe(401);
      });
    });
  });

  describe(`slow fal jobs become tasks (${database.name})`, () => {
    let gateway: MediaGateway;
    beforeAll(async () => {
      gateway = await startMediaGateway({ databaseUrl: database.url, syncWindowMs: 150 });
    });
    afterAll(() => gateway?.close());

    it('answers 202 with a polling URL, then shows the result; the reservation is settled once', async () => {
      const before = await readMoney(gateway);
      const response = await call(gateway, gateway.key, 'POST', '/v1/images/generations', { model: 'sim/flux', prompt: 'a slow castle [[sim:job_ms=1200]]', n: 2, response_format: 'url' });
      expect(response.status).toBe(202);
      const requestId = response.headers.get('x-request-id')!;
      const accepted = (await response.json()) as { data: { id: string; status: string; polling_url: string } };
      expect(accepted.data.polling_url).toBe(`/v1/media/requests/${accepted.data.id}`);
      expect(['queued', 'in_progress']).toContain(accepted.data.status);
      expect((await readMoney(gateway)).reserved).toBe(nano(0.05));

      const pending = (await (await call(gateway, gateway.key, 'GET', accepted.data.polling_url)).json()) as { data: { status: string; result?: unknown } };
      expect(['queued', 'in_progress']).toContain(pending.data.status);
      expect(pending.data.result).toBeUndefined();

      expect(await driveTask(gateway, accepted.data.id)).toBe('completed');
      const done = (await (await call(gateway, gateway.key, 'GET', accepted.data.polling_url)).json()) as {
        data: { status: string; cost: number; result: { data: Array<{ url: string }>; usage: { images: number; cost: number } } };
      };
      expect(done.data.status).toBe('completed');
      expect(done.data.cost).toBe(0.05);
      expect(done.data.result.usage).toEqual({ images: 2, cost: 0.05 });
      const file = await fetch(done.data.result.data[1].url, { headers: { authorization: `Bearer ${gateway.key}` } });
      expect(pngSize(Buffer.from(await file.arrayBuffer()))).toEqual({ width: 1024, height: 1024 });

      // Polling again changes nothing: one charge, under the creating request's id.
      await gateway.test.context.tasks.runOnce();
      const after = await readMoney(gateway);
      expect(after.usage - before.usage).toBe(nano(0.05));
      expect(after.reserved).toBe(0n);
      expect(await chargesOf(gateway, requestId)).toEqual([nano(0.05)]);
      const logged = (await (await call(gateway, gateway.key, 'GET', `/v1/requests/${requestId}`)).json()) as { data: { cost: number; status: string } };
      expect(logged.data).toMatchObject({ cost: 0.05, status: 'completed' });
    });

    it('inlines b64_json results of a finished task', async () => {
      const response = await call(gateway, gateway.key, 'POST', '/v1/images/generations', { model: 'sim/flux', prompt: 'slow [[sim:job_ms=600]]', size: '32x32' });
      expect(response.status).toBe(202);
      const { data } = (await response.json()) as { data: { id: string } };
      expect(await driveTask(gateway, data.id)).toBe('completed');
      const done = (await (await call(gateway, gateway.key, 'GET', `/v1/media/requests/${data.id}`)).json()) as { data: { result: { data: Array<{ b64_json: string }> } } };
      expect(pngSize(pngOf(done.data.result.data[0].b64_json))).toEqual({ width: 32, height: 32 });
    });

    it('releases everything when the queued job fails', async () => {
      const before = await readMoney(gateway);
      const response = await call(gateway, gateway.key, 'POST', '/v1/images/generations', { model: 'sim/flux', prompt: 'doomed [[sim:job_ms=500,fail]]' });
      expect(response.status).toBe(202);
      const { data } = (await response.json()) as { data: { id: string } };
      expect(await driveTask(gateway, data.id)).toBe('failed');
      const failed = (await (await call(gateway, gateway.key, 'GET', `/v1/media/requests/${data.id}`)).json()) as { data: { status: string; error: string; cost: number } };
      expect(failed.data).toMatchObject({ status: 'failed', cost: 0 });
      expect(failed.data.error).toContain('Simulated failure');
      const after = await readMoney(gateway);
      expect(after.usage).toBe(before.usage);
      expect(after.reserved).toBe(0n);
    });

    it('keeps media requests private to their account, and apart from other task kinds', async () => {
      const response = await call(gateway, gateway.key, 'POST', '/v1/images/generations', { model: 'sim/flux', prompt: 'mine [[sim:job_ms=400]]' });
      const { data } = (await response.json()) as { data: { id: string } };
      const other = await gateway.test.createAccount({ credits: 1 });
      expect((await call(gateway, other.key, 'GET', `/v1/media/requests/${data.id}`)).status).toBe(404);
      expect((await call(gateway, gateway.key, 'GET', '/v1/media/requests/image_nothing')).status).toBe(404);
      await driveTask(gateway, data.id);
    });
  });
}
