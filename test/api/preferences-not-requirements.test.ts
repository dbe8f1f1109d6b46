import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simulatedCatalogYaml, startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';
import { testDatabases } from '../helpers/test-databases.js';

// Node 20's fetch types answer `unknown`; these tests read the shapes they assert.
type Json = any;

/**
 * Contract §4, "preferences are not requirements": the requests real agents send by default,
 * replayed with the official SDKs, on models that have neither a hosted search nor reasoning
 * (the simulated catalog's three single-protocol models). Cline's Anthropic provider always
 * offers `web_search_20250305`; its OpenAI provider offers `web_search` and `image_generation`
 * and sends `truncation: "auto"`; Qwen Code's Anthropic mode sends `thinking` with a 32,000-token
 * budget on every request. Each is served without what the endpoint lacks, and says so.
 */

/** `sim/everywhere` reasons only on its anthropic-wire endpoint, the dearer one; the context window is small enough to overflow. */
function preferencesCatalog(simulatorUrl: string): string {
  // Two Claude families on the simulated Anthropic wire: Sonnet 4.5 refuses temperature with
  // top_p, Sonnet 3.7 takes both (the simulator holds them to Anthropic's documented rule).
  const claude = (id: string, upstream: string) =>
    `  - id: ${id}\n    name: "Sim: ${id}"\n    context_length: 32000\n    modalities: {input: [text], output: [text]}\n    endpoints:\n      - provider: sim-anthropic\n        model: ${upstream}\n        pricing: {prompt: 1, completion: 2}\n        supported_parameters: [max_tokens, temperature, top_p]\n        max_completion_tokens: 1000\n`;
  return (
    simulatedCatalogYaml(simulatorUrl)
      .replace(/(model: claude-everywhere\n.*\n\s+supported_parameters: \[[^\]]*)\]/, '$1, reasoning]')
      .replace(/(- id: sim\/backup\n(?:.*\n){1}\s+)context_length: 32000/, '$1context_length: 2000') +
    claude('sim/claude-sonnet-4-5', 'claude-sonnet-4-5-20250929') +
    claude('sim/claude-3-7-sonnet', 'claude-3-7-sonnet-20250219')
  );
}

const wires = [
  ['sim/openai-model', 'openai'],
  ['sim/anthropic-model', 'anthropic'],
  ['sim/gemini-model', 'gemini'],
] as const;

const clineTool = {
  name: 'execute_command',
  description: 'Runs a CLI command on the system.',
  input_schema: { type: 'object' as const, properties: { command: { type: 'string' } }, required: ['command'] },
};

for (const database of testDatabases()) {
  describe(`preferences are not requirements, on ${database.name}`, () => {
    let gateway: SimulatedGateway;
    let openai: OpenAI;
    let anthropic: Anthropic;

    beforeAll(async () => {
      gateway = await startSimulatedGateway({ databaseUrl: database.url, catalogYaml: preferencesCatalog, credits: 100 });
      openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: gateway.key, maxRetries: 0 });
      anthropic = new Anthropic({ baseURL: gateway.url, apiKey: gateway.key, maxRetries: 0 });
    });
    afterAll(async () => gateway?.close());

    const omittedOnLog = async (requestId: string | null): Promise<string[]> => {
      await gateway.test.context.requestLog.flush();
      const response = await gateway.test.app.inject({ method: 'GET', url: `/v1/requests/${requestId}`, headers: { authorization: `Bearer ${gateway.key}` } });
      expect(response.statusCode).toBe(200);
      return (response.json() as Json).data.omitted;
    };

    it.each(wires)('serves Cline’s Anthropic-provider request (web_search_20250305 always offered, streamed) on %s without the search, and says so', async (model, protocol) => {
      gateway.simulator.reset();
      const { data: stream, response } = await anthropic.messages
        .create({
          model,
          max_tokens: 8192,
          system: [{ type: 'text', text: 'You are Cline.', cache_control: { type: 'ephemeral' } }],
          messages: [{ role: 'user', content: 'list the files [[sim-text:here they are]]' }],
          tools: [clineTool, { type: 'web_search_20250305', name: 'web_search', max_uses: 5 }],
          tool_choice: { type: 'auto' },
          stream: true,
        })
        .withResponse();
      let text = '';
      for await (const event of stream) if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') text += event.delta.text;
      expect(text).toContain('here they are');
      expect(response.headers.get('x-switchyard-omitted')).toBe('tools[type=web_search]');
      expect(await omittedOnLog(response.headers.get('x-request-id'))).toEqual(['tools[type=web_search]']);
      const upstream = JSON.stringify(gateway.simulator.lastRequest(protocol)?.body);
      expect(upstream).toContain('execute_command');
      expect(upstream).not.toMatch(/web_search|googleSearch/);
    });

    it.each(wires)('serves Cline’s OpenAI-provider request (web_search, image_generation, truncation auto) on %s without the hosted tools', async (model, protocol) => {
      gateway.simulator.reset();
      const { data: response, response: raw } = await openai.responses
        .create({
          model,
          instructions: 'You are Cline.',
          input: [{ role: 'user', content: 'what is here? [[sim-text:a readme]]' }],
          tools: [
            { type: 'function', name: 'execute_command', parameters: clineTool.input_schema, strict: false },
            { type: 'web_search' },
            { type: 'image_generation' },
          ],
          truncation: 'auto',
          stream: false,
        })
        .withResponse();
      expect(response.status).toBe('completed');
      expect(response.output_text).toContain('a readme');
      expect(response.truncation).toBe('auto');
      expect(raw.headers.get('x-switchyard-omitted')).toBe('tools[type=web_search], tools[type=image_generation]');
      expect(await omittedOnLog(raw.headers.get('x-request-id'))).toEqual(['tools[type=web_search]', 'tools[type=image_generation]']);
      expect(JSON.stringify(gateway.simulator.lastRequest(protocol)?.body)).not.toMatch(/web_search|googleSearch|image_generation/);
    });

    it.each(wires)('serves Qwen Code’s Anthropic-mode request (thinking with a 32,000-token budget) on %s, which does not reason, without thinking', async (model, protocol) => {
      gateway.simulator.reset();
      // Streamed, as Qwen Code does (the SDK streams any request that may run this long).
      const { data: stream, response } = await anthropic.messages
        .create({
          model,
          max_tokens: 32_000,
          thinking: { type: 'enabled', budget_tokens: 32_000 },
          system: 'You are Qwen Code.',
          messages: [{ role: 'user', content: 'hello [[sim-text:hi there]]' }],
          tools: [clineTool],
          stream: true,
        })
        .withResponse();
      let text = '';
      for await (const event of stream) if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') text += event.delta.text;
      expect(text).toContain('hi there');
      expect(response.headers.get('x-switchyard-omitted')).toBe('thinking');
      expect(await omittedOnLog(response.headers.get('x-request-id'))).toEqual(['thinking']);
      expect(JSON.stringify(gateway.simulator.lastRequest(protocol)?.body)).not.toMatch(/thinking|reasoning_effort/);
    });

    it('drops Chat Completions reasoning_effort and web_search_options where the model has neither, translated rather than relayed', async () => {
      gateway.simulator.reset();
      const { data: completion, response } = await openai.chat.completions
        .create({ model: 'sim/openai-model', messages: [{ role: 'user', content: 'hi' }], reasoning_effort: 'high', web_search_options: {} })
        .withResponse();
      expect(completion.choices[0].message.content).toContain('hi');
      expect(response.headers.get('x-switchyard-omitted')).toBe('reasoning_effort, web_search_options');
      const upstream = gateway.simulator.lastRequest('openai')?.body as Json;
      expect(upstream).not.toHaveProperty('reasoning_effort');
      expect(upstream).not.toHaveProperty('web_search_options');
    });

    it('prefers the endpoint that reasons for a request with thinking, and the cheapest without', async () => {
      const body = { model: 'sim/everywhere', max_tokens: 2048, messages: [{ role: 'user' as const, content: 'think' }] };
      const thinking = await anthropic.messages.create({ ...body, thinking: { type: 'enabled', budget_tokens: 1024 } }).withResponse();
      expect(thinking.response.headers.get('x-switchyard-provider')).toBe('sim-anthropic');
      expect(thinking.response.headers.get('x-switchyard-omitted')).toBeNull();
      expect(await omittedOnLog(thinking.response.headers.get('x-request-id'))).toEqual([]);
      const plain = await anthropic.messages.create(body).withResponse();
      expect(plain.response.headers.get('x-switchyard-provider')).toBe('sim-openai');
    });

    it('sends a Claude family that refuses temperature with top_p the temperature only, and says so; older families get both', async () => {
      gateway.simulator.reset();
      // Sent as the client sent it, the simulated Anthropic API refuses the pair, as the real one does.
      const direct = await fetch(`${gateway.simulator.url}/anthropic/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': 'sim-key', 'anthropic-version': '2023-06-01' },
        body: JSON.stringify({ model: 'claude-sonnet-4-5-20250929', max_tokens: 16, temperature: 0, top_p: 1, messages: [{ role: 'user', content: 'x' }] }),
      });
      expect(direct.status).toBe(400);
      expect(((await direct.json()) as Json).error.message).toBe('temperature and top_p cannot both be specified for this model. Please use only one.');

      const chat = await openai.chat.completions
        .create({ model: 'sim/claude-sonnet-4-5', messages: [{ role: 'user', content: 'x' }], temperature: 0.2, top_p: 0.9 })
        .withResponse();
      expect(chat.response.headers.get('x-switchyard-omitted')).toBe('top_p');
      expect(await omittedOnLog(chat.response.headers.get('x-request-id'))).toEqual(['top_p']);
      expect(gateway.simulator.lastRequest('anthropic')?.body).toMatchObject({ temperature: 0.2 });
      expect(gateway.simulator.lastRequest('anthropic')?.body).not.toHaveProperty('top_p');

      // Gemini CLI's default generation config (temperature 0, topP 1), a Messages client's both:
      // the same, in each style's own field names; one alone goes through untouched.
      const gemini = await fetch(`${gateway.url}/v1beta/models/sim/claude-sonnet-4-5:generateContent`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-goog-api-key': gateway.key },
        body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'x' }] }], generationConfig: { temperature: 0, topP: 1 } }),
      });
      expect(gemini.status).toBe(200);
      expect(gemini.headers.get('x-switchyard-omitted')).toBe('generationConfig.topP');
      expect(gateway.simulator.lastRequest('anthropic')?.body).toMatchObject({ temperature: 0 });
      expect(gateway.simulator.lastRequest('anthropic')?.body).not.toHaveProperty('top_p');
      // The Anthropic SDK's types no longer carry the sampling fields; older clients still send them.
      const sampling: object = { temperature: 1, top_p: 0.5 };
      const messages = await anthropic.messages.create({ model: 'sim/claude-sonnet-4-5', max_tokens: 16, messages: [{ role: 'user', content: 'x' }], ...sampling }).withResponse();
      expect(messages.response.headers.get('x-switchyard-omitted')).toBe('top_p');
      expect(gateway.simulator.lastRequest('anthropic')?.body).not.toHaveProperty('top_p');
      const alone = await openai.chat.completions.create({ model: 'sim/claude-sonnet-4-5', messages: [{ role: 'user', content: 'x' }], top_p: 0.9 }).withResponse();
      expect(alone.response.headers.get('x-switchyard-omitted')).toBeNull();
      expect(gateway.simulator.lastRequest('anthropic')?.body).toMatchObject({ top_p: 0.9 });

      // A family that takes both, on the same wire, and other protocols, get both.
      const older = await fetch(`${gateway.url}/v1beta/models/sim/claude-3-7-sonnet:generateContent`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-goog-api-key': gateway.key },
        body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'x' }] }], generationConfig: { temperature: 0, topP: 1 } }),
      });
      expect(older.status).toBe(200);
      expect(older.headers.get('x-switchyard-omitted')).toBeNull();
      expect(gateway.simulator.lastRequest('anthropic')?.body).toMatchObject({ temperature: 0, top_p: 1 });
      await openai.chat.completions.create({ model: 'sim/openai-model', messages: [{ role: 'user', content: 'x' }], temperature: 0.2, top_p: 0.9 });
      expect(gateway.simulator.lastRequest('openai')?.body).toMatchObject({ temperature: 0.2, top_p: 0.9 });
    });

    it('emulates truncation auto: the oldest turns after the instructions go until the input fits; disabled sends it all', async () => {
      // sim/backup's context window is 2,000 tokens; each old turn is ~1,000 estimated tokens.
      const filler = 'x'.repeat(3000);
      const input: OpenAI.Responses.ResponseInputItem[] = [];
      for (let turn = 1; turn <= 3; turn += 1) {
        input.push({ role: 'user', content: `turn ${turn} ${filler}` }, { role: 'assistant', content: `answer ${turn}` });
      }
      input.push({ role: 'user', content: 'the last question' });

      gateway.simulator.reset();
      const truncated = await openai.responses.create({ model: 'sim/backup', instructions: 'Be brief.', input, truncation: 'auto' });
      expect(truncated.status).toBe('completed');
      const sent = JSON.stringify(gateway.simulator.lastRequest('anthropic')?.body);
      expect(sent).toContain('Be brief.');
      expect(sent).toContain('the last question');
      expect(sent).not.toContain('turn 1 ');
      expect(sent).not.toContain('answer 1');

      gateway.simulator.reset();
      await openai.responses.create({ model: 'sim/backup', instructions: 'Be brief.', input, truncation: 'disabled' });
      expect(JSON.stringify(gateway.simulator.lastRequest('anthropic')?.body)).toContain('turn 1 ');
    });

    it('still refuses what the request forces: a hosted tool in tool_choice, n > 1', async () => {
      const forced = await openai.responses
        .create({ model: 'sim/openai-model', input: 'x', tools: [{ type: 'image_generation' }], tool_choice: { type: 'image_generation' } })
        .catch((caught: unknown) => caught);
      expect(forced).toBeInstanceOf(OpenAI.BadRequestError);
      expect((forced as Error).message).toContain("'image_generation' forces a hosted tool");
      const onlyHosted = await openai.responses
        .create({ model: 'sim/openai-model', input: 'x', tools: [{ type: 'web_search' }], tool_choice: 'required' })
        .catch((caught: unknown) => caught);
      expect(onlyHosted).toBeInstanceOf(OpenAI.BadRequestError);
      expect((onlyHosted as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('tool_choice');
      const n = await openai.chat.completions.create({ model: 'sim/openai-model', messages: [{ role: 'user', content: 'x' }], n: 2 }).catch((caught: unknown) => caught);
      expect(n).toBeInstanceOf(OpenAI.BadRequestError);
    });
  });
}
