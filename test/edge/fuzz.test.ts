import fc from 'fast-check';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAccountMoney, startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';
import { testDatabases } from '../helpers/test-databases.js';
import { fuzzRequest, type Credential, type FuzzRequest } from './fuzz-arbitraries.js';

/**
 * Property-based fuzzing of every registered route (contract: every error in the envelope, never
 * a 500). Seeded: the seed is printed; replay a failure with FUZZ_SEED=<seed>. At least 10,000
 * generated requests on each database per run (FUZZ_RUNS overrides the number).
 */
const seed = Number(process.env.FUZZ_SEED) || Date.now() % 2_147_483_647;
const databases = testDatabases();
const totalRuns = Number(process.env.FUZZ_RUNS) || 10_000;
const runsPerDatabase = totalRuns;
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
    'answers every fuzzed request without a 500, errors in the envelope, nothing leaked',
    async () => {
      const routes = gateway.test.app.registeredRoutes.filter((route) => route.method !== 'HEAD');
      const secrets = [gateway.test.adminToken, 'sim-key', managementKey, ordinaryKey];
      const statuses = new Map<number, number>();
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
          if (isGeminiStyle(request)) {
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
          const body = response.json() as { error: { code: string; status: number; message: string; metadata: { request_id: string } } };
          expect(body.error.status).toBe(response.statusCode);
          expect(typeof body.error.code).toBe('string');
          expect(typeof body.error.message).toBe('string');
          expect(body.error.metadata.request_id).toBe(response.headers['x-request-id']);
        }),
        { seed, numRuns: runsPerDatabase, endOnFailure: true },
      );
      process.stdout.write(`fuzz ${database.name}: statuses ${JSON.stringify(Object.fromEntries([...statuses].sort(([left], [right]) => left - right)))}\n`);

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

/** The Gemini style's routes answer errors in Google's shape (docs/api.md, "Gemini style"). */
function isGeminiStyle(request: FuzzRequest): boolean {
  // A path the router cannot decode never reaches a route: the framework's error is the default style.
  try {
    decodeURIComponent(request.url.split('?')[0]);
  } catch {
    return false;
  }
  const path = request.url.split('?')[0];
  if (request.method === 'GET') return path.startsWith('/v1beta/models');
  // `POST /v1/models/` names no model: it is the catalog's path (405 in the default style), not a Gemini call.
  return request.method === 'POST' && /^\/(v1beta|v1)\/models\/./.test(path);
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
