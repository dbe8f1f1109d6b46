import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sniffImageType } from '../../src/core/sniff-image-type.js';
import { readAccountMoney, simulatedCatalogYaml, startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';

// Issue 21: the Responses image_generation tool on a text model — the gateway has the configured
// catalog image model make the image and returns it as an image_generation_call item, charged
// at that model's price (its own request on the images path) besides the text request's tokens.
const imagePrice = 40_000_000n; // 0.04 USD per image

let gateway: SimulatedGateway;
let openai: OpenAI;

beforeAll(async () => {
  gateway = await startSimulatedGateway({
    catalogYaml: (url) =>
      `${simulatedCatalogYaml(url)}  - id: sim/painter
    name: "Sim: Painter"
    modalities: {input: [text], output: [image]}
    sizes: ["1024x1024"]
    endpoints:
      - {provider: sim-openai, model: painter-1, pricing: {image: 0.04}}
`,
    configure: (config) => {
      config.hostedTools = { imageGeneration: { model: 'sim/painter' } };
    },
  });
  openai = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1` });
});
afterAll(async () => {
  await gateway?.close();
});

describe('gateway-run image generation (hosted_tools.image_generation)', () => {
  it.each([false, true])('a text model returns an image_generation_call item the image model made, charged at its price (streamed: %s)', async (stream) => {
    const before = await readAccountMoney(gateway);
    const body = {
      model: 'sim/anthropic-model',
      input: 'Draw a red square [[sim-call:image_generation {"prompt":"a red square"}]]',
      tools: [{ type: 'image_generation' as const }],
    };
    let response!: OpenAI.Responses.Response;
    if (stream) {
      for await (const event of await openai.responses.create({ ...body, stream: true })) if (event.type === 'response.completed') response = event.response;
    } else {
      response = await openai.responses.create(body);
    }
    expect(response.output.map((item) => item.type)).toEqual(['image_generation_call', 'message']);
    const call = response.output[0] as OpenAI.Responses.ResponseOutputItem.ImageGenerationCall;
    expect(call.status).toBe('completed');
    expect(sniffImageType(Buffer.from(call.result!, 'base64'))).toBe('image/png');
    const after = await readAccountMoney(gateway);
    expect(after.reserved).toBe(0n);
    const textCost = BigInt(Math.round((response.usage as unknown as { cost: number }).cost * 1e9));
    expect(textCost).toBeGreaterThan(0n);
    expect(after.usage - before.usage).toBe(textCost + imagePrice);
  });
});
