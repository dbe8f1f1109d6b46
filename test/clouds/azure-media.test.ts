import OpenAI, { toFile } from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildPng } from '@switchyard/simulator';
import { startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';

/**
 * Azure OpenAI's speech and images (`/openai/v1/audio/speech`, `/openai/v1/images/...`, and on
 * the deployment API `/openai/deployments/{d}/audio/speech?api-version=`,
 * `/openai/deployments/{d}/images/generations?api-version=`), through the gateway from the
 * official OpenAI SDK. The simulator's Azure routes take only the `api-key` header (a bearer
 * token is refused with Azure's 401), and on the deployment API the deployment names the model.
 */
const catalogYaml = (url: string) => `
limits: {free_daily_requests: 5, requests_per_minute: 0}
providers:
  - {id: azure-v1, name: Azure v1, api: openai, platform: {kind: azure}, base_url: "${url}/azure/openai/v1", api_key: sim-key}
  - {id: azure-deployments, name: Azure deployments, api: openai, platform: {kind: azure, api_version: "2025-04-01-preview"}, base_url: "${url}/azure/openai", api_key: sim-key}
models:
  - id: azure/tts-v1
    name: "Azure: TTS (v1)"
    modalities: {input: [text], output: [audio]}
    voices: [alloy]
    endpoints:
      - {provider: azure-v1, model: gpt-4o-mini-tts, pricing: {characters: 15}}
  - id: azure/tts-deployment
    name: "Azure: TTS (deployment)"
    modalities: {input: [text], output: [audio]}
    voices: [alloy]
    endpoints:
      - {provider: azure-deployments, model: my-tts, pricing: {characters: 15}}
  - id: azure/image-v1
    name: "Azure: image (v1)"
    modalities: {input: [text, image], output: [image]}
    sizes: ["64x64"]
    endpoints:
      - {provider: azure-v1, model: gpt-image-1, pricing: {image: 0.04}}
  - id: azure/image-deployment
    name: "Azure: image (deployment)"
    modalities: {input: [text, image], output: [image]}
    sizes: ["64x64"]
    endpoints:
      - {provider: azure-deployments, model: my-image-deployment, pricing: {image: 0.04}}
`;

let gateway: SimulatedGateway;
let client: OpenAI;

beforeAll(async () => {
  gateway = await startSimulatedGateway({ simulator: { apiKey: 'sim-key' }, catalogYaml, credits: 100 });
  client = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
});
afterAll(async () => gateway?.close());
afterEach(() => gateway.simulator.reset());

const isPng = (bytes: Buffer) => bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));

describe.each([
  { api: 'v1 API', tts: 'azure/tts-v1', image: 'azure/image-v1', ttsUpstream: 'gpt-4o-mini-tts', imageUpstream: 'gpt-image-1' },
  { api: 'deployment API', tts: 'azure/tts-deployment', image: 'azure/image-deployment', ttsUpstream: 'my-tts', imageUpstream: 'my-image-deployment' },
])('Azure OpenAI media on the $api', ({ tts, image, ttsUpstream, imageUpstream }) => {
  it('speaks: MP3 through the OpenAI SDK', async () => {
    const { data, response } = await client.audio.speech.create({ model: tts, voice: 'alloy', input: 'Hello from Azure' }).withResponse();
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('audio/mpeg');
    expect(Buffer.from(await data.arrayBuffer())[0]).toBe(0xff);
    // The Azure route was the one answered, under the deployment's (or the body's) model name.
    expect(gateway.simulator.stats().protocols.openai.models).toEqual({ [ttsUpstream]: 1 });
  });

  it('draws and edits images through the OpenAI SDK', async () => {
    const generated = await client.images.generate({ model: image, prompt: 'a lighthouse', size: '64x64' as '256x256' });
    expect(isPng(Buffer.from(generated.data![0].b64_json!, 'base64'))).toBe(true);
    const edited = await client.images.edit({ model: image, prompt: 'add a boat', image: await toFile(buildPng(64, 64, [200, 40, 40]), 'in.png', { type: 'image/png' }), size: '64x64' as '256x256' });
    expect(isPng(Buffer.from(edited.data![0].b64_json!, 'base64'))).toBe(true);
    expect(gateway.simulator.stats().protocols.openai.requests).toBe(2);
    if (image === 'azure/image-deployment') expect(gateway.simulator.stats().protocols.openai.models).toEqual({ [imageUpstream]: 2 });
  });
});

describe('the simulator as Azure', () => {
  it.each([
    ['/azure/openai/v1/audio/speech', 200],
    ['/azure/openai/deployments/my-tts/audio/speech?api-version=2025-04-01-preview', 200],
    // The deployment API without api-version is not a route (404), as on Azure.
    ['/azure/openai/deployments/my-tts/audio/speech', 404],
  ])('answers %s with the api-key header (%i)', async (path, status) => {
    const send = (headers: Record<string, string>) =>
      fetch(`${gateway.simulator.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ model: 'tts', voice: 'alloy', input: 'hi' }) });
    expect((await send({ 'api-key': 'sim-key' })).status).toBe(status);
    if (status === 200) {
      // A bearer token is not how Azure takes its key.
      const refused = await send({ authorization: 'Bearer sim-key' });
      expect(refused.status).toBe(401);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('401');
    }
  });
});
