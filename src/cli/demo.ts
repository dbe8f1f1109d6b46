import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createAccount } from '../accounts/create-account.js';
import { buildApp } from '../app.js';
import { normalizeConfig } from '../config/normalize-config.js';
import { parseConfigText } from '../config/load-config.js';
import { readServerConfig } from '../config/read-server-config.js';
import { closeContext, createContext } from '../create-context.js';
import { startSimulator } from '@switchyard/simulator';

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

/** Where the demo keeps its database and the environment file a second terminal sources. */
export const demoFolder = 'data/demo';

const quote = (value: string) => `'${value.replaceAll("'", "'\\''")}'`;

/**
 * `switchyard demo` (npm run demo): the simulator and the gateway in one process, offline, on a
 * fresh SQLite database in `data/demo/` with an admin token and a demo account. It writes
 * `data/demo/env` (DATABASE_URL, SWITCHYARD_ADMIN_TOKEN, BASE, KEY) so that another terminal
 * reaches the same account with curl and the admin CLI, prints the page, the key and calls to
 * try, and on Ctrl-C removes `data/demo/` (and `data/` if the demo made it).
 */
export async function runDemo(): Promise<void> {
  const folder = resolve(demoFolder);
  const madeData = !existsSync(resolve(folder, '..'));
  // A demo killed without its Ctrl-C left its folder: this run starts afresh.
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  const removeFolder = () => {
    rmSync(folder, { recursive: true, force: true });
    const data = resolve(folder, '..');
    if (madeData && existsSync(data) && readdirSync(data).length === 0) rmSync(data, { recursive: true });
  };
  try {
    const simulator = await startSimulator({ tokensPerSecond: 30 });
    const adminToken = process.env.SWITCHYARD_ADMIN_TOKEN || randomBytes(24).toString('hex');
    const databaseUrl = `sqlite:${resolve(folder, 'demo.db')}`;
    const server = { ...readServerConfig(process.env), databaseUrl, adminToken, logLevel: 'warn' };
    const config = normalizeConfig(parseConfigText(demoCatalog(simulator.url), 'demo catalog', process.env), 'demo catalog', server);
    const context = await createContext(config);
    const app = await buildApp(context);
    const address = (await app.listen({ host: server.host, port: server.port })).replace('[::1]', 'localhost');
    const { account, key } = await createAccount(context, { name: 'demo', credits: 10_000_000_000n });
    const environment = { DATABASE_URL: databaseUrl, SWITCHYARD_ADMIN_TOKEN: adminToken, BASE: `${address}/v1`, KEY: key };
    writeFileSync(resolve(folder, 'env'), Object.entries(environment).map(([name, value]) => `export ${name}=${quote(value)}\n`).join(''), { mode: 0o600 });
    const lines = [
      `switchyard demo: the gateway and a provider simulator, offline (no provider key needed)`,
      `  page         ${address}/   (sign in with the key; the admin token opens the operator console)`,
      `  API          ${address}/v1   models demo/openai-style, demo/anthropic-style, demo/gemini-style`,
      `  key          ${key}   (account ${account.id} "demo", 10 USD of credits)`,
      `  admin token  ${adminToken}`,
      `  database     ${databaseUrl}`,
      '',
      `In another terminal, in this folder:  . ${demoFolder}/env   (sets DATABASE_URL, SWITCHYARD_ADMIN_TOKEN, BASE and KEY), then`,
      `  curl $BASE/chat/completions -H "Authorization: Bearer $KEY" -H 'content-type: application/json' \\`,
      `       -d '{"model":"demo/anthropic-style","messages":[{"role":"user","content":"Hello there"}]}'`,
      `  curl -N $BASE/messages -H "x-api-key: $KEY" -H 'content-type: application/json' \\`,
      `       -d '{"model":"demo/gemini-style","max_tokens":100,"stream":true,"messages":[{"role":"user","content":"Stream to me"}]}'`,
      '  npx switchyard admin list-accounts      # the admin CLI on the same database',
      '',
      `Ctrl-C stops it and deletes ${demoFolder}/.`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    let stopping = false;
    const stop = async () => {
      if (stopping) {
        removeFolder();
        process.exit(130);
      }
      stopping = true;
      try {
        await app.close();
        await closeContext(context);
        await simulator.close();
      } finally {
        removeFolder();
      }
      process.exit(0);
    };
    process.on('SIGINT', () => void stop());
    process.on('SIGTERM', () => void stop());
  } catch (error) {
    removeFolder();
    throw error;
  }
}
