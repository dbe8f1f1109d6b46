import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAccountMoney, sendJson, startCohereGateway } from '../helpers/cohere-gateway.js';
import type { SimulatedGateway } from '../helpers/simulated-gateway.js';
import { testDatabases } from '../helpers/test-databases.js';

const query = 'capital of the united states';
const documents = ['Carson City is the capital of Nevada.', 'Washington is the capital of the United States.'];

// The money of a rerank on each store: the exact charge, nothing held afterwards, 402 before any call.
describe.each(testDatabases())('rerank charges on $name', (database) => {
  let gateway: SimulatedGateway;
  beforeAll(async () => {
    // $0.005: two searches of $0.002 fit, a third does not.
    gateway = await startCohereGateway({ databaseUrl: database.url, credits: 0.005 });
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('charges searches × price exactly, in the ledger and on the request row, and holds nothing after', async () => {
    const response = await sendJson(gateway, gateway.key, 'POST', '/v1/rerank', { model: 'cohere/rerank-v3.5', query, documents });
    expect(response.status).toBe(200);
    const money = await readAccountMoney(gateway);
    expect(money.usage).toBe(2_000_000n);
    expect(money.reserved).toBe(0n);
    await gateway.test.context.requestLog.flush();
    const row = await gateway.test.context.store.db.selectFrom('requests').select(['endpoint', 'cost', 'status']).where('id', '=', response.headers.get('x-request-id')!).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ endpoint: '/rerank', status: 'completed' });
    expect(BigInt(row.cost)).toBe(2_000_000n);
  });

  it('refuses 402, calling no provider, when the most the request can cost exceeds the balance left', async () => {
    gateway.simulator.reset();
    // 250 documents can be billed 3 searches ($0.006); $0.003 is left.
    const response = await sendJson(gateway, gateway.key, 'POST', '/v1/rerank', { model: 'cohere/rerank-v3.5', query, documents: Array.from({ length: 250 }, (_, index) => `doc ${index}`) });
    expect(response.status).toBe(402);
    expect(gateway.simulator.stats().protocols.cohere.requests).toBe(0);
    const money = await readAccountMoney(gateway);
    expect(money.usage).toBe(2_000_000n);
    expect(money.reserved).toBe(0n);
  });
});
