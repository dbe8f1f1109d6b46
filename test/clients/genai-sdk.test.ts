import { ApiError, FunctionCallingConfigMode, GoogleGenAI, Type, type Content, type GenerateContentResponse } from '@google/genai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAccountMoney, simulatedCatalogYaml, startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';
import { wireModels } from '../agents/agent-cli.js';

/**
 * The `@google/genai` SDK with its default settings (only the base URL and key set) against the
 * gateway's Gemini style, on a model of each provider wire protocol, streaming and not.
 */
let gateway: SimulatedGateway;
let genai: GoogleGenAI;
/** A second gateway whose endpoints list response_format, as the structured output test suite's. */
let structuredGateway: SimulatedGateway;
let structured: GoogleGenAI;

beforeAll(async () => {
  gateway = await startSimulatedGateway({ credits: 100 });
  genai = new GoogleGenAI({ apiKey: gateway.key, httpOptions: { baseUrl: gateway.url } });
  structuredGateway = await startSimulatedGateway({ catalogYaml: (url) => simulatedCatalogYaml(url).replaceAll('tool_choice]', 'tool_choice, response_format]') });
  structured = new GoogleGenAI({ apiKey: structuredGateway.key, httpOptions: { baseUrl: structuredGateway.url } });
});
afterAll(async () => {
  await gateway?.close();
  await structuredGateway?.close();
});

const citySchema = { type: 'object', properties: { name: { type: 'string' }, population: { type: 'integer' } }, required: ['name', 'population'] };

const weather = {
  name: 'get_weather',
  description: 'Weather for a city',
  parameters: { type: Type.OBJECT, properties: { city: { type: Type.STRING } }, required: ['city'] },
};

function expectSimulatedText(text: string | undefined, upstream: string) {
  expect(text).toMatch(new RegExp(`^Simulated reply from ${upstream}: `));
  expect(text!.split(/\s+/).length).toBe(16);
}

describe.each(wireModels)('$wire-wire model $model', ({ model, upstream }) => {
  it('answers generateContent with text, usage and cost', async () => {
    const response = await genai.models.generateContent({ model, contents: 'Say hello to the gateway' });
    expectSimulatedText(response.text, upstream);
    expect(response.candidates?.[0].finishReason).toBe('STOP');
    expect(response.modelVersion).toBe(model);
    expect(response.responseId).toMatch(/\S/);
    const usage = response.usageMetadata!;
    expect(usage.candidatesTokenCount).toBe(16);
    expect(usage.totalTokenCount).toBe(usage.promptTokenCount! + 16);
    expect((usage as { cost?: number }).cost).toBeGreaterThan(0);
  });

  it('streams with generateContentStream, usage and cost in the last chunk', async () => {
    const stream = await genai.models.generateContentStream({ model, contents: 'Say hello to the gateway', config: { systemInstruction: 'Be brief' } });
    let text = '';
    let last: GenerateContentResponse | undefined;
    for await (const chunk of stream) {
      text += chunk.text ?? '';
      last = chunk;
    }
    expectSimulatedText(text, upstream);
    expect(last?.candidates?.[0].finishReason).toBe('STOP');
    expect(last?.usageMetadata?.candidatesTokenCount).toBe(16);
    expect((last?.usageMetadata as { cost?: number }).cost).toBeGreaterThan(0);
  });

  it('answers a thinkingConfig on a model that does not reason: a preference, dropped', async () => {
    const response = await genai.models.generateContent({ model, contents: 'Say hello', config: { thinkingConfig: { thinkingBudget: 1024, includeThoughts: true } } });
    expect(response.text).toMatch(new RegExp(`^Simulated reply from ${upstream}: `));
  });

  it('counts tokens with countTokens', async () => {
    const counted = await genai.models.countTokens({ model, contents: 'one two three four' });
    expect(counted.totalTokens).toBeGreaterThan(0);
  });

  for (const streaming of [false, true]) {
    it(`calls parallel functions and reads their functionResponse turn${streaming ? ', streaming' : ''}`, async () => {
      const tools = [{ functionDeclarations: [weather, { name: 'get_time', description: 'Time in a zone', parametersJsonSchema: { type: 'object', properties: { zone: { type: 'string' } }, required: ['zone'] } }] }];
      const contents: Content[] = [{ role: 'user', parts: [{ text: 'Weather and time, in parallel please' }] }];
      const generate = async () => {
        if (!streaming) return genai.models.generateContent({ model, contents, config: { tools } });
        const parts: NonNullable<Content['parts']> = [];
        let finishReason: string | undefined;
        for await (const chunk of await genai.models.generateContentStream({ model, contents, config: { tools } })) {
          parts.push(...(chunk.candidates?.[0].content?.parts ?? []));
          finishReason ??= chunk.candidates?.[0].finishReason;
        }
        return { candidates: [{ content: { role: 'model', parts }, finishReason }], functionCalls: parts.flatMap((part) => (part.functionCall ? [part.functionCall] : [])) };
      };
      const first = await generate();
      const calls = first.functionCalls ?? [];
      expect(calls.map((call) => call.name)).toEqual(['get_weather', 'get_time']);
      expect(calls[0].args).toEqual({ city: 'sample' });
      expect(calls[1].args).toEqual({ zone: 'sample' });
      contents.push(first.candidates![0].content as Content);
      contents.push({
        role: 'user',
        parts: calls.map((call) => ({ functionResponse: { id: call.id, name: call.name!, response: { output: call.name === 'get_weather' ? 'sunny-21' : 'noon-12' } } })),
      });
      const second = await generate();
      const text = second.candidates![0].content!.parts!.map((part) => part.text ?? '').join('');
      // The simulator echoes the last tool result it read: either call's output, by protocol.
      expect(text).toMatch(/sunny-21|noon-12/);
    });
  }

  it('forces one function with toolConfig ANY and allowedFunctionNames', async () => {
    const response = await genai.models.generateContent({
      model,
      contents: 'Weather?',
      config: {
        tools: [{ functionDeclarations: [{ name: 'other', parameters: { type: Type.OBJECT, properties: {} } }, weather] }],
        toolConfig: { functionCallingConfig: { mode: FunctionCallingConfigMode.ANY, allowedFunctionNames: ['get_weather'] } },
      },
    });
    expect(response.functionCalls?.map((call) => call.name)).toEqual(['get_weather']);
  });

  it('refuses a response schema by name where no endpoint of the model holds answers to one', async () => {
    const request = genai.models.generateContent({
      model,
      contents: 'A city as JSON',
      config: { responseMimeType: 'application/json', responseSchema: { type: Type.OBJECT, properties: { city: { type: Type.STRING } } } },
    });
    // The plain simulated catalog lists no response_format: the schema is a requirement, refused by name.
    const error = await request.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(400);
    expect((error as ApiError).message).toContain('generationConfig.responseSchema');
  });

  for (const streaming of [false, true]) {
    it(`holds the answer to responseJsonSchema${streaming ? ', streaming' : ''}`, async () => {
      const config = { responseMimeType: 'application/json', responseJsonSchema: citySchema };
      let text = '';
      if (streaming) for await (const chunk of await structured.models.generateContentStream({ model, contents: 'A city', config })) text += chunk.text ?? '';
      else text = (await structured.models.generateContent({ model, contents: 'A city', config })).text ?? '';
      expect(JSON.parse(text)).toEqual({ name: expect.any(String), population: expect.any(Number) });
    });
  }
});

describe('errors in Google’s shape', () => {
  it('raises ApiError with the status, Google’s code and name for it, and the gateway code as ErrorInfo reason', async () => {
    const error = await genai.models.generateContent({ model: 'sim/no-such-model', contents: 'hi' }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(503);
    const body = JSON.parse((error as ApiError).message) as { error: { code: number; status: string; metadata: { request_id: string }; details: Array<{ reason: string }> } };
    // Google's answer for a model it does not serve, which Gemini clients do not retry; the HTTP status is the spec's 503.
    expect(body.error.code).toBe(404);
    expect(body.error.status).toBe('NOT_FOUND');
    expect(body.error.details[0].reason).toBe('no_available_provider');
    expect(body.error.metadata.request_id).toMatch(/\S/);
  });

  it('refuses a bad key with 401 UNAUTHENTICATED', async () => {
    const bad = new GoogleGenAI({ apiKey: 'sy_' + 'x'.repeat(43), httpOptions: { baseUrl: gateway.url } });
    const error = await bad.models.generateContent({ model: 'sim/openai-model', contents: 'hi' }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect((error as ApiError).status).toBe(401);
    expect(JSON.parse((error as ApiError).message).error.status).toBe('UNAUTHENTICATED');
  });
});

it('settled every request above: nothing left reserved', async () => {
  const money = await readAccountMoney(gateway);
  expect(money.reserved).toBe(0n);
  expect(money.usage).toBeGreaterThan(0n);
});
