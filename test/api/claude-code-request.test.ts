import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simulatedCatalogYaml, startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';

/**
 * Claude Code's first `/v1/messages?beta=true` request (its shape as the CLI sends it: adaptive
 * thinking with its display omitted, effort, context management, an end-user id, cache
 * breakpoints on system blocks, a deferred tool, a system entry inside messages, streaming, a
 * 32,000-token cap and seven betas), replayed with the official SDK's beta client through the real
 * gateway to a simulator upstream of each provider protocol.
 */
function agentCatalog(simulatorUrl: string): string {
  // Coding models cap output well above the 32,000 tokens Claude Code asks for, and think.
  return simulatedCatalogYaml(simulatorUrl)
    .replace(/(model: (?:gpt-sim|claude-sim|gemini-sim)\n.*\n\s+supported_parameters: \[[^\]]*)\]/g, '$1, reasoning]')
    .replaceAll('max_completion_tokens: 1000', 'max_completion_tokens: 64000');
}

const betas = [
  'claude-code-20250219', 'oauth-2025-04-20', 'interleaved-thinking-2025-05-14', 'context-management-2025-06-27',
  'prompt-caching-scope-2026-01-05', 'advanced-tool-use-2025-11-20', 'effort-2025-11-24',
];

const claudeCodeBody = (model: string) => ({
  model,
  max_tokens: 32000,
  stream: true as const,
  thinking: { type: 'adaptive' as const, display: 'omitted' as const },
  output_config: { effort: 'high' as const },
  context_management: { edits: [{ type: 'clear_thinking_20251015' as const, keep: 'all' as const }] },
  metadata: { user_id: 'user_0f3c_account__session_4b1e' },
  system: [
    { type: 'text' as const, text: "You are Claude Code, Anthropic's official CLI for Claude.", cache_control: { type: 'ephemeral' as const } },
    { type: 'text' as const, text: 'You are an interactive CLI tool that helps users with software engineering tasks.', cache_control: { type: 'ephemeral' as const, ttl: '1h' as const } },
  ],
  tools: [
    {
      name: 'Bash',
      description: 'Executes a given bash command and returns its output.',
      input_schema: { type: 'object' as const, properties: { command: { type: 'string' }, timeout: { type: 'number' } }, required: ['command'], additionalProperties: false },
    },
    {
      name: 'WebFetch',
      description: 'Fetches content from a URL.',
      defer_loading: true,
      eager_input_streaming: true,
      input_schema: { type: 'object' as const, properties: { url: { type: 'string' } }, required: ['url'] },
    },
  ],
  messages: [
    { role: 'user' as const, content: [{ type: 'text' as const, text: 'say hi', cache_control: { type: 'ephemeral' as const } }] },
    // The CLI sends reminders as system entries between turns.
    { role: 'system' as const, content: 'The current working directory is /tmp/project.' },
  ],
});

let gateway: SimulatedGateway;
let client: Anthropic;
beforeAll(async () => {
  gateway = await startSimulatedGateway({ catalogYaml: agentCatalog });
  client = new Anthropic({ apiKey: gateway.key, baseURL: gateway.url, maxRetries: 0 });
});
afterAll(() => gateway.close());

describe("Claude Code's first request, through the SDK's beta client", () => {
  it.each(['sim/openai-model', 'sim/anthropic-model', 'sim/gemini-model'])('is answered on %s', async (model) => {
    const stream = client.beta.messages.stream({ ...claudeCodeBody(model), betas } as unknown as Anthropic.Beta.Messages.MessageCreateParamsStreaming);
    const message = await stream.finalMessage();
    expect(message.role).toBe('assistant');
    // The simulator, offered tools, answers with a call of the first one, as a coding model does.
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content).toContainEqual(expect.objectContaining({ type: 'tool_use', name: 'Bash', input: expect.objectContaining({ command: expect.any(String) }) }));
    expect(message.usage.input_tokens).toBeGreaterThan(0);
    expect(message.usage.output_tokens).toBeGreaterThan(0);
  });

  it('carries the betas, the adaptive thinking, the effort, context management and caching to an Anthropic upstream', async () => {
    gateway.simulator.reset();
    await client.beta.messages.stream({ ...claudeCodeBody('sim/anthropic-model'), betas } as unknown as Anthropic.Beta.Messages.MessageCreateParamsStreaming).finalMessage();
    const received = gateway.simulator.lastRequest('anthropic');
    if (!received) return expect.fail('the simulator received no request');
    expect(received.headers['anthropic-beta']).toBe(betas.join(','));
    // Relayed natively (Messages → anthropic): the CLI's body byte for byte but for the model
    // name, so every field — cache breakpoints on their blocks, deferred tools — means what it means to Anthropic.
    expect(received.rawBody).toBe(JSON.stringify(claudeCodeBody('claude-sim')));
  });

  it("records metadata.user_id as the request's end user on a gemini-wire model, and sends Gemini nothing about a user", async () => {
    gateway.simulator.reset();
    const stream = client.beta.messages.stream({ ...claudeCodeBody('sim/gemini-model'), betas } as unknown as Anthropic.Beta.Messages.MessageCreateParamsStreaming);
    const message = await stream.finalMessage();
    expect(message.stop_reason).toBe('tool_use');
    const requestId = (await stream.withResponse()).response.headers.get('x-request-id');
    expect(requestId).toMatch(/^req_/);
    await gateway.test.context.requestLog.flush();
    const logged = await fetch(`${gateway.url}/v1/requests/${requestId}`, { headers: { authorization: `Bearer ${gateway.key}` } });
    expect(logged.status).toBe(200);
    expect(((await logged.json()) as { data: { end_user: string | null; model: string } }).data).toMatchObject({ end_user: 'user_0f3c_account__session_4b1e', model: 'sim/gemini-model' });

    const received = gateway.simulator.lastRequest('gemini');
    if (!received) return expect.fail('the simulator received no Gemini request');
    // Gemini's body has no end-user field: neither the id nor any key naming a user goes upstream
    // (`role: "user"` is a value, not a field).
    expect(received.rawBody).not.toContain('user_0f3c');
    const keys = (value: unknown): string[] =>
      Array.isArray(value) ? value.flatMap(keys) : value && typeof value === 'object' ? Object.entries(value).flatMap(([key, inner]) => [key, ...keys(inner)]) : [];
    expect(keys(received.body).filter((key) => /user|metadata/i.test(key))).toEqual([]);
  });

  it('answers an unknown field by name, and a field only Anthropic honours on another protocol with why', async () => {
    const typo = await client.messages.create({ model: 'sim/openai-model', max_tokens: 10, messages: [{ role: 'user', content: 'x' }], max_tokenz: 5 } as unknown as Anthropic.MessageCreateParamsNonStreaming).catch((error: unknown) => error);
    expect(typo).toBeInstanceOf(Anthropic.BadRequestError);
    expect((typo as Error).message).toContain("'max_tokenz'");
    const container = await client.messages.create({ model: 'sim/gemini-model', max_tokens: 10, messages: [{ role: 'user', content: 'x' }], container: 'cntr_1' } as unknown as Anthropic.MessageCreateParamsNonStreaming).catch((error: unknown) => error);
    expect(container).toBeInstanceOf(Anthropic.BadRequestError);
    expect((container as Error).message).toMatch(/'container'.*use an Anthropic model/);
  });
});

describe('POST /v1/messages/count_tokens', () => {
  it('counts the tokens of a Messages request with the SDK, on any protocol, free of charge', async () => {
    const before = await client.messages.countTokens({ model: 'sim/gemini-model', messages: [{ role: 'user', content: 'hi' }] });
    const longer = await client.messages.countTokens({
      model: 'sim/openai-model',
      system: 'You are terse.',
      tools: [{ name: 'Bash', input_schema: { type: 'object', properties: { command: { type: 'string' } } } }],
      messages: [{ role: 'user', content: 'Count the words in this sentence, please, and then some more words.' }],
    });
    expect(before.input_tokens).toBeGreaterThan(0);
    expect(longer.input_tokens).toBeGreaterThan(before.input_tokens + 10);
    const credits = (await (await fetch(`${gateway.url}/v1/credits`, { headers: { authorization: `Bearer ${gateway.key}` } })).json()) as { data: { total_usage: number } };
    const usageBefore = credits.data.total_usage;
    await client.messages.countTokens({ model: 'sim/anthropic-model', messages: [{ role: 'user', content: 'hi' }] });
    const after = (await (await fetch(`${gateway.url}/v1/credits`, { headers: { authorization: `Bearer ${gateway.key}` } })).json()) as { data: { total_usage: number } };
    expect(after.data.total_usage).toBe(usageBefore);
  });

  it('refuses an unknown model and a body that is not a Messages request', async () => {
    const unknown = await client.messages.countTokens({ model: 'sim/nope', messages: [{ role: 'user', content: 'hi' }] }).catch((error: unknown) => error);
    expect((unknown as { status?: number }).status).toBe(503);
    const bad = await client.messages.countTokens({ model: 'sim/openai-model', messages: [] }).catch((error: unknown) => error);
    expect(bad).toBeInstanceOf(Anthropic.BadRequestError);
  });
});

describe("Claude Code's 32,000-token default on a model with a smaller cap", () => {
  it('is lowered to the cap, and a value beyond the context length is a 400 naming the cap', async () => {
    const small = await startSimulatedGateway();
    try {
      const smallClient = new Anthropic({ apiKey: small.key, baseURL: small.url, maxRetries: 0 });
      // The test catalog caps output at 1,000 tokens with a 32,000-token context.
      const message = await smallClient.messages.stream({ model: 'sim/anthropic-model', max_tokens: 32000, messages: [{ role: 'user', content: 'hi' }] }).finalMessage();
      expect(message.content.length).toBeGreaterThan(0);
      expect((small.simulator.lastRequest('anthropic')?.body as { max_tokens: number }).max_tokens).toBe(1000);
      const tooMany = await smallClient.messages.stream({ model: 'sim/anthropic-model', max_tokens: 100_000, messages: [{ role: 'user', content: 'hi' }] }).finalMessage().catch((error: unknown) => error);
      expect(tooMany).toBeInstanceOf(Anthropic.BadRequestError);
      expect((tooMany as Error).message).toContain('(1000)');
      // On models that do not reason, the whole request is answered and its advisory thinking
      // and effort are not sent to a provider that would refuse them.
      for (const [model, protocol] of [['sim/openai-model', 'openai'], ['sim/anthropic-model', 'anthropic'], ['sim/gemini-model', 'gemini']] as const) {
        const answer = await smallClient.beta.messages.stream({ ...claudeCodeBody(model), betas } as unknown as Anthropic.Beta.Messages.MessageCreateParamsStreaming).finalMessage();
        expect(answer.content.length).toBeGreaterThan(0);
        const sent = JSON.stringify(small.simulator.lastRequest(protocol)?.body);
        expect(sent).not.toMatch(/reasoning_effort|"thinking"|thinkingConfig|"effort"/);
      }
    } finally {
      await small.close();
    }
  });
});
