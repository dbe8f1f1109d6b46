import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simulatedCatalogYaml, startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';

/**
 * The Codex CLI's first `/v1/responses` request (its shape as Codex sends it: cache key, no
 * storage, encrypted reasoning, reasoning summary, client metadata, developer messages, function
 * and namespace tools, the hosted web search, streaming), replayed with the official `openai` SDK
 * through the real gateway to a simulator upstream of each provider protocol.
 */

/** The three single-protocol models offer reasoning and web search; `sim/backup` offers neither. */
function codexCatalog(simulatorUrl: string): string {
  // Real endpoints of reasoning models cap output far above the thinking budget of an effort.
  return simulatedCatalogYaml(simulatorUrl)
    .replace(/(model: (?:gpt-sim|claude-sim|gemini-sim)\n.*\n\s+supported_parameters: \[[^\]]*)\]/g, '$1, reasoning, web_search]')
    .replaceAll('max_completion_tokens: 1000', 'max_completion_tokens: 32000');
}

const namespaceTool = {
  type: 'namespace',
  name: 'mcp__files',
  description: 'Tools of the files MCP server',
  tools: [
    {
      type: 'function',
      name: 'read_file',
      description: 'Reads a file',
      strict: false,
      defer_loading: false,
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'], additionalProperties: false },
    },
  ],
};

const shellTool = {
  type: 'function',
  name: 'exec_command',
  description: 'Runs a shell command and returns its output.',
  strict: false,
  parameters: { type: 'object', properties: { cmd: { type: 'string' } }, required: ['cmd'], additionalProperties: false },
};

function codexBody(model: string, options: { webSearch?: boolean; input?: unknown[] } = {}): Record<string, unknown> {
  return {
    model,
    instructions: 'You are Codex, a coding agent based on GPT-5.',
    input: options.input ?? [
      { type: 'message', role: 'developer', content: [{ type: 'input_text', text: '<permissions instructions>sandbox: workspace-write</permissions instructions>' }] },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: '<environment_context><cwd>/tmp/work</cwd></environment_context>' }] },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'say hi' }] },
    ],
    tools: [namespaceTool, shellTool, ...(options.webSearch ? [{ type: 'web_search', external_web_access: false }] : [])],
    tool_choice: 'auto',
    parallel_tool_calls: false,
    reasoning: { effort: 'medium', summary: 'auto' },
    store: false,
    stream: true,
    include: ['reasoning.encrypted_content'],
    prompt_cache_key: '019a0c7e-codex-session',
    text: { verbosity: 'low' },
    client_metadata: { originator: 'codex_exec', session_id: '019a0c7e' },
  };
}

const models = ['sim/openai-model', 'sim/anthropic-model', 'sim/gemini-model'];

describe('the Codex CLI request through the gateway', () => {
  let gateway: SimulatedGateway;
  let client: OpenAI;

  beforeAll(async () => {
    gateway = await startSimulatedGateway({ catalogYaml: codexCatalog, credits: 100 });
    client = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  });
  afterAll(async () => gateway.close());

  for (const model of models) {
    it(`answers Codex's first request on ${model} with a call to the namespaced function, then the answer after its output`, async () => {
      const body = codexBody(model, { webSearch: true });
      const stream = client.responses.stream(body as unknown as OpenAI.Responses.ResponseCreateParamsStreaming);
      const events: string[] = [];
      for await (const event of stream) events.push(event.type);
      const response = await stream.finalResponse();
      expect(response.status).toBe('completed');
      expect(events).toContain('response.function_call_arguments.done');
      const call = response.output.find((item) => item.type === 'function_call');
      expect(call).toMatchObject({ type: 'function_call', name: 'read_file', namespace: 'mcp__files' });
      if (call?.type !== 'function_call') throw new Error('no function call');
      expect(JSON.parse(call.arguments)).toHaveProperty('path');

      // Codex's next turn: the call (with its namespace) and its output, appended to the input.
      const input = [...(body.input as unknown[]), call, { type: 'function_call_output', call_id: call.call_id, output: 'hello from the file' }];
      const next = await client.responses.create({ ...codexBody(model, { webSearch: true, input }), stream: false } as unknown as OpenAI.Responses.ResponseCreateParamsNonStreaming);
      expect(next.status).toBe('completed');
      expect(next.output_text).toContain('hello from the file');
    });
  }

  it('serves Codex’s default request on a model with neither search nor reasoning, saying what it left out, in the answer and on the request log', async () => {
    const body = { ...codexBody('sim/backup', { webSearch: true }), stream: false };
    const { data: response, response: raw } = await client.responses
      .create(body as unknown as OpenAI.Responses.ResponseCreateParamsNonStreaming)
      .withResponse();
    expect(response.status).toBe('completed');
    expect(response.output.some((item) => item.type === 'function_call')).toBe(true);
    expect(raw.headers.get('x-switchyard-omitted')).toBe('tools[type=web_search], reasoning.effort');
    const requestId = raw.headers.get('x-request-id');
    await gateway.test.context.requestLog.flush();
    const logged = await fetch(`${gateway.url}/v1/requests/${requestId}`, { headers: { authorization: `Bearer ${gateway.key}` } });
    expect(((await logged.json()) as { data: { omitted: string[] } }).data.omitted).toEqual(['tools[type=web_search]', 'reasoning.effort']);
  });

  it('says nothing was left out where the model has both', async () => {
    const { response: raw } = await client.responses
      .create({ ...codexBody('sim/openai-model', { webSearch: true }), stream: false } as unknown as OpenAI.Responses.ResponseCreateParamsNonStreaming)
      .withResponse();
    expect(raw.headers.get('x-switchyard-omitted')).toBeNull();
  });

  it('still refuses a hosted tool the request forces, and says how to offer it instead', async () => {
    const body = { ...codexBody('sim/backup', { webSearch: true }), tool_choice: { type: 'web_search' }, stream: false };
    const error = await client.responses.create(body as unknown as OpenAI.Responses.ResponseCreateParamsNonStreaming).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as Error).message).toContain("'web_search' forces a hosted tool");
  });

  it('still refuses a field the style does not define, by name', async () => {
    const error = await client.responses
      .create({ ...codexBody('sim/openai-model'), max_tokenz: 5, stream: false } as unknown as OpenAI.Responses.ResponseCreateParamsNonStreaming)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as Error).message).toContain("'max_tokenz'");
  });
});
