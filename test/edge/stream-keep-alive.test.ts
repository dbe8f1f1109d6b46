import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '@switchyard/simulator';
import { simulatedCatalogYaml } from '../helpers/simulated-gateway.js';
import { killSpawnedServers, spawnServer, switchyardBin } from '../helpers/spawn-server.js';

/**
 * A kept-alive connection is closed by the gateway after SWITCHYARD_KEEP_ALIVE_TIMEOUT_MS idle
 * (Node adds a second), and every answer says so in `Keep-Alive: timeout=N`, so that a client
 * retires the connection first. A client that reuses a connection just as the gateway closes it
 * gets ECONNRESET on a request it cannot safely retry (a POST): when the gateway's event loop is
 * held up (a major GC), the idle timers that came due meanwhile run before the requests that
 * arrived meanwhile are read. The soak (test/load/soak.test.ts) met it: three streams reset at a
 * major GC, on connections whose last answer was a stream and so carried no hint.
 */
const keepAliveMs = 3_000;
let simulator: Simulator;
let url: string;
let key: string;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  simulator = await startSimulator();
  const directory = mkdtempSync(join(tmpdir(), 'switchyard-keep-alive-'));
  writeFileSync(join(directory, 'switchyard.yaml'), simulatedCatalogYaml(simulator.url));
  const env = {
    DATABASE_URL: `sqlite:${join(directory, 'gateway.db')}`,
    SWITCHYARD_CONFIG: join(directory, 'switchyard.yaml'),
    LOG_LEVEL: 'silent',
    SWITCHYARD_KEEP_ALIVE_TIMEOUT_MS: String(keepAliveMs),
  };
  const created = spawnSync(process.execPath, [switchyardBin, 'admin', 'create-account', '--credits', '10'], { env: { ...process.env, ...env }, encoding: 'utf8' });
  key = (JSON.parse(created.stdout) as { key: string }).key;
  ({ url } = await spawnServer(env));
}, 60_000);
afterAll(async () => {
  killSpawnedServers();
  await simulator.close();
});

const messages = [{ role: 'user', content: 'hello [[sim:reply_tokens=3]]' }];
const answers = {
  'a JSON answer': ['/v1/chat/completions', { model: 'sim/openai-model', max_tokens: 50, messages }],
  'a Chat Completions stream': ['/v1/chat/completions', { model: 'sim/openai-model', max_tokens: 50, stream: true, messages }],
  'a Messages stream': ['/v1/messages', { model: 'sim/anthropic-model', max_tokens: 50, stream: true, messages }],
  'a Responses stream': ['/v1/responses', { model: 'sim/openai-model', stream: true, input: 'hello [[sim:reply_tokens=3]]' }],
  'a Gemini SSE stream': ['/v1beta/models/sim/gemini-model:streamGenerateContent?alt=sse', { contents: [{ role: 'user', parts: [{ text: 'hello [[sim:reply_tokens=3]]' }] }] }],
  'a Gemini JSON-array stream': ['/v1beta/models/sim/gemini-model:streamGenerateContent', { contents: [{ role: 'user', parts: [{ text: 'hello [[sim:reply_tokens=3]]' }] }] }],
} as const;

describe('keep-alive on every answer, streams included', () => {
  it.each(Object.entries(answers))('%s says how long the gateway keeps the idle connection', async (_name, [path, body]) => {
    const pool = new Pool(url);
    try {
      const response = await pool.request({ method: 'POST', path, headers: { authorization: `Bearer ${key}`, 'x-goog-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const text = await response.body.text();
      expect(response.statusCode, text).toBe(200);
      expect(response.headers.connection).toBe('keep-alive');
      expect(response.headers['keep-alive']).toBe(`timeout=${keepAliveMs / 1000}`);
    } finally {
      await pool.close();
    }
  });

  it('lets a client that keeps connections as long as the gateway allows retire a stream\'s connection before the gateway closes it', async () => {
    // As the soak's load does: without a hint, undici keeps an idle connection 30 s; with one, the
    // hint less two seconds (here 1 s). The gateway closes it after 3 s + Node's 1 s.
    const pool = new Pool(url, { keepAliveTimeout: 30_000 });
    try {
      const [path, body] = answers['a Chat Completions stream'];
      const response = await pool.request({ method: 'POST', path, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect(await response.body.text()).toContain('data: [DONE]');
      expect(pool.stats.connected).toBe(1);
      // undici's keep-alive timers tick every half second: the 1 s one has fired by 2.5 s, well
      // before the gateway's own close at 4 s.
      await sleep(2_500);
      expect(pool.stats.connected).toBe(0);
    } finally {
      await pool.close();
    }
  }, 20_000);
});
