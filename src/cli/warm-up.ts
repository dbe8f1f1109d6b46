import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { Pool } from 'undici';
import { createAccount } from '../accounts/create-account.js';
import type { AppContext } from '../app-context.js';
import { buildApp } from '../app.js';
import { parseConfigText } from '../config/load-config.js';
import { normalizeConfig } from '../config/normalize-config.js';
import { readServerConfig } from '../config/read-server-config.js';
import { closeContext, createContext } from '../create-context.js';
import { startSimulator } from '@switchyard/simulator';

export interface WarmUpSummary {
  requests: number;
  /** Answers other than 200 (a sign that the warm-up ran less of the path than it meant to). */
  failed: number;
  ms: number;
}

const CONCURRENCY = 8;
/** However slow the machine, the warm-up gives up issuing requests after this long. */
const DEADLINE_MS = 20_000;

/**
 * Warm-up before the first connection. A fresh process runs its request path in V8's interpreter
 * and baseline tiers until the hot functions are optimised: an instance that takes its full share
 * of traffic at once answers at about half its warm rate for its first seconds, and the requests
 * of those seconds queue (measured on two cores at 200 mixed requests/s: ~100 answered a second
 * for 1–2 s, p99 1–3 s; test/load/soak.test.ts).
 *
 * Before `serve` listens, this sends `requests` requests through a second instance of the same
 * application in this process: its own in-memory SQLite database and account, and the project's
 * provider simulator on a loopback port behind every text protocol (OpenAI, Anthropic, Gemini),
 * asked in every API style (Chat Completions, Messages, Responses, Gemini), streamed and not. The
 * code they run — the HTTP server and client, the styles and translations, routing, the ledger —
 * is the code real requests run, and V8 keeps what it optimised. Nothing of it reaches the real
 * database, the configured providers or the books; all of it is closed before `serve` listens.
 * It never stops a start: a failure is logged and the instance serves cold.
 */
export async function warmUp(requests: number, logger: Logger): Promise<WarmUpSummary | undefined> {
  if (requests <= 0) return undefined;
  try {
    const summary = await runWarmUp(requests);
    if (summary.failed > 0) logger.warn(summary, 'warm-up: some requests failed; the first real ones may meet slower code');
    else logger.info(summary, 'warmed up');
    return summary;
  } catch (error) {
    logger.warn({ err: error }, 'warm-up failed; serving cold');
    return undefined;
  }
}

async function runWarmUp(requests: number): Promise<WarmUpSummary> {
  const started = performance.now();
  const simulator = await startSimulator({ latencyMs: 0, tokensPerSecond: 0 });
  let context: AppContext | undefined;
  let app: FastifyInstance | undefined;
  try {
    const server = { ...readServerConfig({}), databaseUrl: 'sqlite::memory:', redisUrl: null, logLevel: 'silent', warmUpRequests: 0 };
    const config = normalizeConfig(parseConfigText(warmUpCatalog(simulator.url), 'warm-up catalog', {}), 'warm-up catalog', server);
    context = await createContext(config, { tracing: null });
    app = await buildApp(context);
    await app.listen({ host: '127.0.0.1', port: 0 });
    const { key } = await createAccount(context, { name: 'warm-up', credits: 1_000_000_000_000n });
    const outcome = await sendWarmUpRequests(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, key, requests, started);
    return { ...outcome, ms: Math.round(performance.now() - started) };
  } finally {
    await app?.close();
    if (context) await closeContext(context);
    await simulator.close();
  }
}

/** `requests` requests, CONCURRENCY at a time, until the deadline; how many went out and how many were not 200. */
async function sendWarmUpRequests(url: string, key: string, requests: number, started: number): Promise<{ requests: number; failed: number }> {
  const pool = new Pool(url, { connections: CONCURRENCY });
  let sent = 0;
  let failed = 0;
  const worker = async () => {
    while (sent < requests && performance.now() - started < DEADLINE_MS) {
      const { path, body } = warmUpRequest(sent);
      sent += 1;
      const response = await pool.request({ method: 'POST', path, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      await response.body.text();
      if (response.statusCode !== 200) failed += 1;
    }
  };
  try {
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  } finally {
    await pool.close();
  }
  return { requests: sent, failed };
}

const MODELS = ['warm-up/openai', 'warm-up/anthropic', 'warm-up/gemini'];

/** Request `index`: the models in turn, each streamed and not, in each API style in turn. */
export function warmUpRequest(index: number): { path: string; body: object; model: string; stream: boolean } {
  const model = MODELS[index % MODELS.length];
  const stream = Math.floor(index / MODELS.length) % 2 === 1;
  const text = `warm-up request ${index}`;
  switch (Math.floor(index / (MODELS.length * 2)) % 4) {
    case 0:
      return { model, stream, path: '/v1/chat/completions', body: { model, stream, messages: [{ role: 'user', content: text }], ...(stream && { stream_options: { include_usage: true } }) } };
    case 1:
      return { model, stream, path: '/v1/messages', body: { model, stream, max_tokens: 64, messages: [{ role: 'user', content: text }] } };
    case 2:
      return { model, stream, path: '/v1/responses', body: { model, stream, input: text } };
    default:
      return { model, stream, path: `/v1beta/models/${model}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`, body: { contents: [{ role: 'user', parts: [{ text }] }] } };
  }
}

function warmUpCatalog(simulatorUrl: string): string {
  const model = (id: string, provider: string, upstream: string) =>
    `  - id: ${id}\n    name: ${id}\n    context_length: 32000\n    modalities: {input: [text], output: [text]}\n    endpoints:\n      - provider: ${provider}\n        model: ${upstream}\n        pricing: {prompt: 1, completion: 2}\n        supported_parameters: [max_tokens, temperature, top_p, stop, tools, tool_choice]\n`;
  return `
providers:
  - {id: warm-up-openai, name: Warm-up OpenAI, api: openai, base_url: "${simulatorUrl}/openai/v1", api_key: warm-up}
  - {id: warm-up-anthropic, name: Warm-up Anthropic, api: anthropic, base_url: "${simulatorUrl}/anthropic", api_key: warm-up}
  - {id: warm-up-gemini, name: Warm-up Gemini, api: gemini, base_url: "${simulatorUrl}/gemini/v1beta", api_key: warm-up}
models:
${model('warm-up/openai', 'warm-up-openai', 'gpt-warm-up')}${model('warm-up/anthropic', 'warm-up-anthropic', 'claude-warm-up')}${model('warm-up/gemini', 'warm-up-gemini', 'gemini-warm-up')}`;
}
