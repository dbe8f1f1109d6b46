import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAccount } from '../accounts/create-account.js';
import { buildApp } from '../app.js';
import { normalizeConfig } from '../config/normalize-config.js';
import { parseConfigText } from '../config/load-config.js';
import { readServerConfig } from '../config/read-server-config.js';
import { closeContext, createContext } from '../create-context.js';
import { startSimulator } from '../simulator/index.js';

/** A catalog with one model per wire protocol, all served by the simulator. */
function demoCatalog(simulatorUrl: string): string {
  const model = (id: string, provider: string, upstream: string) => `  - id: ${id}
    name: "Demo: ${id}"
    description: Served by the local simulator over the ${provider.replace('sim-', '')} wire protocol.
    context_length: 32000
    modalities: {input: [text, image], output: [text]}
    endpoints:
      - {provider: ${provider}, model: ${upstream}, pricing: {prompt: 1, completion: 2}, supported_parameters: [max_tokens, temperature, top_p, stop, tools, tool_choice], max_completion_tokens: 1000}
`;
  return `providers:
  - {id: sim-openai, name: Simulator (OpenAI protocol), api: openai, base_url: "${simulatorUrl}/openai/v1"}
  - {id: sim-anthropic, name: Simulator (Anthropic protocol), api: anthropic, base_url: "${simulatorUrl}/anthropic"}
  - {id: sim-gemini, name: Simulator (Gemini protocol), api: gemini, base_url: "${simulatorUrl}/gemini/v1beta"}
models:
${model('demo/openai-style', 'sim-openai', 'gpt-demo')}${model('demo/anthropic-style', 'sim-anthropic', 'claude-demo')}${model('demo/gemini-style', 'sim-gemini', 'gemini-demo')}`;
}

/**
 * `switchyard demo` (npm run demo): the simulator and the gateway in one process, on a
 * throw-away SQLite database, with a demo account; prints calls to try.
 */
export async function runDemo(): Promise<void> {
  const simulator = await startSimulator({ tokensPerSecond: 30 });
  const server = { ...readServerConfig(process.env), databaseUrl: `sqlite:${join(mkdtempSync(join(tmpdir(), 'switchyard-demo-')), 'demo.db')}`, logLevel: 'warn' };
  const config = normalizeConfig(parseConfigText(demoCatalog(simulator.url), 'demo catalog', process.env), 'demo catalog', server);
  const context = await createContext(config);
  const app = await buildApp(context);
  const address = await app.listen({ host: server.host, port: server.port });
  const { key } = await createAccount(context, { name: 'demo', credits: 10_000_000_000n });
  const lines = [
    `switchyard demo listening on ${address} (simulator at ${simulator.url})`,
    `demo account key: ${key}  (10 USD of credits)`,
    '',
    'try:',
    `  curl ${address}/v1/chat/completions -H "Authorization: Bearer ${key}" -H 'content-type: application/json' \\`,
    `       -d '{"model":"demo/anthropic-style","messages":[{"role":"user","content":"Hello there"}]}'`,
    `  curl -N ${address}/v1/messages -H "x-api-key: ${key}" -H 'content-type: application/json' \\`,
    `       -d '{"model":"demo/gemini-style","max_tokens":100,"stream":true,"messages":[{"role":"user","content":"Stream to me"}]}'`,
    `  curl ${address}/v1/credits -H "Authorization: Bearer ${key}"`,
    '',
    'Ctrl-C stops it.',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  const stop = async () => {
    await app.close();
    await closeContext(context);
    await simulator.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
}
