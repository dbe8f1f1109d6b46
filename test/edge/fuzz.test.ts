import fc from 'fast-check';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAccountMoney, startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';
import { testDatabases } from '../helpers/test-databases.js';
import { fuzzRequest, fuzzSocketMessage, type Credential, type FuzzRequest } from './fuzz-arbitraries.js';
import { SocketClient, terminal, type Json } from '../helpers/socket-client.js';

/**
 * Property-based fuzzing of every registered route (contract: every error in the envelope, never
 * a 500). Seeded: the seed is printed; replay a failure with FUZZ_SEED=<seed>. At least 10,000
 * generated requests on each database per run (FUZZ_RUNS overrides the number).
 */
const seed = Number(process.env.FUZZ_SEED) || Date.now() % 2_147_483_647;
const databases = testDatabases();
const totalRuns = Number(process.env.FUZZ_RUNS) || 10_000;
const runsPerDatabase = totalRuns;
const socketRuns = Number(process.env.FUZZ_SOCKET_RUNS) || 300;
process.stdout.write(`fuzz seed ${seed} (replay: FUZZ_SEED=${seed}), ${runsPerDatabase} requests on each of ${databases.map((database) => database.name).join(', ')}\n`);

interface LogLine {
  level: number;
  msg: string;
}

const stackPattern = /\n\s+at |node_modules|\.ts:\d+|\.js:\d+/;

describe.each(databases)('fuzzing every route on $name', (database) => {
  let gateway: SimulatedGateway;
  let managementKey: string;
  let ordinaryKey: string;
  const errorLines: LogLine[] = [];
  beforeAll(async () => {
    const logger = pino({ level: 'warn' }, { write: (line: string) => void (JSON.parse(line).level >= 50 && errorLines.push(JSON.parse(line) as LogLine)) });
    gateway = await startSimulatedGateway({ databaseUrl: database.url, credits: 1_000, logger });
    managementKey = gateway.key;
    const created = await gateway.test.app.inject({ method: 'POST', url: '/v1/keys', headers: { authorization: `Bearer ${managementKey}` }, payload: { name: 'fuzz' } });
    ordinaryKey = (created.json() as { key: string }).key;
  });
  afterAll(async () => gateway?.close());

  function credentialHeaders(credential: Credential): Record<string, string> {
    switch (credential) {
      case 'key':
        return { authorization: `Bearer ${ordinaryKey}` };
      case 'management':
        return { authorization: `Bearer ${managementKey}` };
      case 'x-api-key':
        return { 'x-api-key': ordinaryKey };
      case 'admin':
        return { authorization: `Bearer ${gateway.test.adminToken}` };
      case 'garbage':
        return { authorization: 'Bearer sy_not-a-key' };
      default:
        return {};
    }
  }

  it(
    'answers every fuzzed WebSocket message with one error in the envelope or one ended response, and logs no error line',
    async () => {
      const socket = new SocketClient(gateway.url, ordinaryKey);
      await socket.opened();
      const answered = (message: Json) => message.type === 'error' || terminal(message);
      const statuses = new Map<number, number>();
      await fc.assert(
        fc.asyncProperty(fuzzSocketMessage, async (text) => {
          const before = socket.messages.filter(answered).length;
          socket.sendText(text);
          const answer = (await socket.waitFor(answered, before + 1, 30_000))[before];
          if (answer.type !== 'error') return;
          statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
          expect(answer.status).not.toBe(500);
          expect(answer.error).toMatchObject({ code: expect.any(String), message: expect.any(String), status: answer.status });
          expect(JSON.stringify(answer)).not.toMatch(stackPattern);
        }),
        { seed, numRuns: socketRuns, endOnFailure: true },
      );
      process.stdout.write(`fuzz ${database.name} (WebSocket): statuses ${JSON.stringify(Object.fromEntries([...statuses].sort(([left], [right]) => left - right)))}\n`);
      socket.close();
      await socket.closed;
      // Taken out as read, so that the HTTP run below answers for its own lines only.
      expect(errorLines.splice(0)).toEqual([]);
    },
    300_000,
  );

  it(
    'answers every fuzzed request without a 500, errors in the envelope, nothing leaked',
    async () => {
      const routes = gateway.test.app.registeredRoutes.filter((route) => route.method !== 'HEAD');
      const secrets = [gateway.test.adminToken, 'sim-key', managementKey, ordinaryKey];
      const statuses = new Map<number, number>();
      // Refusals under `/v1/models/` and `/v1beta/models/` by shape: both sides must be reached.
      const modelsRefusals = { google: 0, envelope: 0 };
      await fc.assert(
        fc.asyncProperty(fuzzRequest(routes), async (request: FuzzRequest) => {
          const response = await gateway.test.app.inject({
            method: request.method as 'GET',
            url: request.url,
            headers: { ...request.headers, ...credentialHeaders(request.credential) },
            payload: request.payload,
          });
          statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
          expect(response.statusCode).not.toBe(500);
          for (const secret of secrets) expect(response.body.includes(secret)).toBe(false);
          if (response.statusCode < 400 || request.method === 'HEAD') return;
          expect(response.body).not.toMatch(stackPattern);
          const underModels = /^\/(v1|v1beta)\/models\//.test(request.url);
          if (isGeminiStyle(request)) {
            if (underModels) modelsRefusals.google += 1;
            // Google's shape: `code` the HTTP status, `status` its name, the envelope's code as the ErrorInfo reason.
            const google = response.json() as { error: { code: number; status: string; message: string; metadata: { request_id: string }; details: Array<{ reason: string }> } };
            // A model with no route answers Google's NOT_FOUND, which Gemini clients do not retry, with the spec's 503.
            expect(google.error.code).toBe(google.error.details[0].reason === 'no_available_provider' ? 404 : response.statusCode);
            expect(typeof google.error.status).toBe('string');
            expect(typeof google.error.details[0].reason).toBe('string');
            expect(typeof google.error.message).toBe('string');
            expect(google.error.metadata.request_id).toBe(response.headers['x-request-id']);
            return;
          }
          if (underModels) modelsRefusals.envelope += 1;
          const body = response.json() as { error: { code: string; status: number; message: string; metadata: { request_id: string } } };
          expect(body.error.status).toBe(response.statusCode);
          expect(typeof body.error.code).toBe('string');
          expect(typeof body.error.message).toBe('string');
          expect(body.error.metadata.request_id).toBe(response.headers['x-request-id']);
        }),
        { seed, numRuns: runsPerDatabase, endOnFailure: true },
      );
      process.stdout.write(`fuzz ${database.name}: statuses ${JSON.stringify(Object.fromEntries([...statuses].sort(([left], [right]) => left - right)))}, refusals under models/ ${JSON.stringify(modelsRefusals)}\n`);
      expect(modelsRefusals.google).toBeGreaterThan(0);
      expect(modelsRefusals.envelope).toBeGreaterThan(0);

      // Healthy afterwards: serving, no reservation left open, no upstream connection left open,
      // and not one error-level log line.
      const health = await gateway.test.app.inject({ method: 'GET', url: '/health' });
      expect(health.statusCode).toBe(200);
      const served = await gateway.test.app.inject({
        method: 'POST',
        url: '/v1/chat/completions',
        headers: { authorization: `Bearer ${managementKey}` },
        payload: { model: 'sim/openai-model', messages: [{ role: 'user', content: 'still there?' }] },
      });
      expect([200, 402]).toContain(served.statusCode);
      await waitFor(async () => (await openReservations(gateway)) === 0 && gateway.simulator.stats().open === 0);
      expect(errorLines).toEqual([]);
    },
    600_000,
  );
});

/**
 * Which answers are in Google's shape (docs/api.md, "Gemini style"; issue 45 item 8, issue 46 item 7):
 * the Gemini style's own paths, and only those, however early they are refused — anything under
 * `/v1beta/models`, and a `POST /v1/models/{model}:{method}` call. Every other path under
 * `/v1/models/` is the catalog's, in the envelope, though the call route's pattern matches it too.
 * Read as the router reads the path: percent-decoded when it decodes, one trailing slash ignored.
 */
function isGeminiStyle(request: FuzzRequest): boolean {
  const raw = request.url.split('?')[0];
  let path = raw;
  try {
    path = decodeURIComponent(raw);
  } catch {
    // Undecodable: refused before routing, in the style of the path as sent.
  }
  if (/^\/v1beta\/models(\/|$)/.test(path)) return true;
  return request.method === 'POST' && /^\/v1\/models\/.+:[^/:]+$/.test(path.replace(/\/$/, ''));
}

/** Accounts whose requests still hold a reservation (a lease's spare part, on PostgreSQL, holds none). */
async function openReservations(gateway: SimulatedGateway): Promise<number> {
  const accounts = await gateway.test.context.store.db.selectFrom('accounts').select('id').execute();
  let open = 0;
  for (const { id } of accounts) if ((await readAccountMoney(gateway, id)).reserved !== 0n) open += 1;
  return open;
}

async function waitFor(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('leak: reservations or upstream connections still open after the fuzz run');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
