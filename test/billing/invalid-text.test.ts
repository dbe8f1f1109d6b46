import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestRecord } from '../../src/billing/request-record.js';
import { sendJson, startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';
import { testDatabases } from '../helpers/test-databases.js';
import { completedRecord } from '../helpers/completed-record.js';

/**
 * Issue 9, defect 4: text that reaches the database is valid for it, and one row the database
 * refuses never blocks the rows behind it (it used to be retried forever at the head of the
 * queue while paid requests piled up behind it).
 */
for (const database of testDatabases()) {
  describe(`invalid text and bad rows on ${database.name}`, () => {
    let gateway: SimulatedGateway;
    beforeAll(async () => {
      gateway = await startSimulatedGateway({ databaseUrl: database.url, credits: 10 });
    });
    afterAll(async () => gateway?.close());

    const chat = (key: string, model: string) =>
      sendJson(gateway, key, 'POST', '/v1/chat/completions', { model, max_tokens: 5, messages: [{ role: 'user', content: 'hi \u0000 \ud800 there' }] });

    it('logs a request whose model holds NUL and a lone surrogate, and the paid requests behind it all reach /requests', async () => {
      const bad = await chat(gateway.key, 'x\u0000\udc00');
      expect(bad.status).toBe(503);
      const badId = bad.headers.get('x-request-id')!;
      const other = await gateway.test.createAccount({ credits: 1 });
      const ids: string[] = [];
      for (let index = 0; index < 20; index += 1) {
        const response = await chat(other.key, 'sim/openai-model');
        expect(response.status).toBe(200);
        ids.push(response.headers.get('x-request-id')!);
      }
      await gateway.test.context.requestLog.flush();
      const listed = (await (await sendJson(gateway, other.key, 'GET', '/v1/requests?limit=100')).json()) as any;
      expect(listed.data.map((row: { id: string }) => row.id).sort()).toEqual([...ids].sort());
      const logged = (await (await sendJson(gateway, gateway.key, 'GET', `/v1/requests/${badId}`)).json()) as any;
      expect(logged.data).toMatchObject({ model: 'x\ufffd\ufffd', status: 'refused' });
      expect(gateway.test.context.requestLog.healthy()).toBe(true);
    });

    it('refuses NUL and non-UTF-8 bytes in a path or query with 400 invalid_request, not 500', async () => {
      for (const path of ['/v1/requests/req_%00x', '/v1/requests?model=a%00b', '/v1/requests?model=%ED%A0%80', '/v1/models/a%00/b/endpoints']) {
        const response = await sendJson(gateway, gateway.key, 'GET', path);
        expect(response.status, path).toBe(400);
        expect(((await response.json()) as any).error).toMatchObject({ code: 'invalid_request', status: 400 });
      }
    });

    it('answers NUL in a stored name (a key name) with 400 on both databases (PostgreSQL cannot store it), not 500', async () => {
      const response = await sendJson(gateway, gateway.key, 'POST', '/v1/keys', { name: 'a\u0000b' });
      expect(response.status).toBe(400);
    });

    it('isolates a row the database refuses for its data: the rest of its batch is written, the charge still counts, the writer stays healthy', async () => {
      const { requestLog } = gateway.test.context;
      const account = await gateway.test.createAccount({ credits: 1 });
      const row = (overrides: Partial<RequestRecord> = {}) => completedRecord(account.accountId, overrides);
      // A provider reporting more tokens than an integer column holds: out of range on PostgreSQL.
      const huge = row({ promptTokens: 2 ** 40, cost: 7_000n });
      const good = Array.from({ length: 9 }, () => row());
      const quarantinedBefore = requestLog.stats().quarantined;
      const settled = requestLog.settle({ reservationId: null, accountId: account.accountId, keyId: null, requestId: huge.id, cost: 7_000n }, huge);
      await Promise.all(good.map((record) => requestLog.record(record)));
      const outcome = await settled;
      await requestLog.flush();
      const { db } = gateway.test.context.store;
      const written = await db.selectFrom('requests').select('id').where('account_id', '=', account.accountId).execute();
      const ids = new Set(written.map((entry) => entry.id));
      for (const record of good) expect(ids.has(record.id)).toBe(true);
      const charged = await db.selectFrom('ledger_entries').select('amount').where('request_id', '=', huge.id).where('kind', '=', 'charge').execute();
      expect(charged.map((entry) => BigInt(entry.amount))).toEqual([7_000n]);
      expect(outcome.charged).toBe(7_000n);
      // The request is in the log with its charge (its counts went to the error log on PostgreSQL).
      expect(ids.has(huge.id)).toBe(true);
      const logged = await db.selectFrom('requests').select(['cost', 'error_code']).where('id', '=', huge.id).executeTakeFirstOrThrow();
      expect(BigInt(logged.cost)).toBe(7_000n);
      if (database.name === 'postgres') {
        expect(logged.error_code).toBe('row_quarantined');
        expect(requestLog.stats().quarantined).toBe(quarantinedBefore + 1);
      }
      expect(requestLog.healthy()).toBe(true);
    });
  });
}
