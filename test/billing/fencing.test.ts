import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Ledger } from '../../src/billing/ledger.js';
import { createId } from '../../src/core/ids.js';
import { systemClock } from '../../src/core/clock.js';
import { backdateHeartbeat } from '../helpers/backdate-heartbeat.js';
import { readAccountMoney, sendJson, startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';
import { testDatabases } from '../helpers/test-databases.js';

/**
 * Issue 9, defect 5: an instance paused past the instance timeout is declared dead by the
 * others, which release its reservations. Its requests still in flight must not then be served
 * for free: their settlement finds the reservation gone and charges the actual cost from the
 * funds (uncollected where the funds are gone), and the instance registers again on its next beat.
 *
 * On PostgreSQL twice: with leases (the default; the swept row is the instance's lease, out of
 * which both requests reserved) and with `SWITCHYARD_LEASES=off` (one row per request).
 */
const runs = testDatabases().flatMap((database) => (database.name === 'postgres' ? [{ database, leases: true }, { database, leases: false }] : [{ database, leases: false }]));
for (const { database, leases } of runs) {
  describe(`fencing a paused instance on ${database.name}${database.name === 'postgres' ? (leases ? ' with leases' : ', SWITCHYARD_LEASES=off') : ''}`, () => {
    let gateway: SimulatedGateway;
    beforeAll(async () => {
      if (!leases) vi.stubEnv('SWITCHYARD_LEASES', 'off');
      else vi.stubEnv('SWITCHYARD_LEASES', undefined);
      try {
        gateway = await startSimulatedGateway({ databaseUrl: database.url, credits: 1, simulator: { latencyMs: 1_500 } });
      } finally {
        vi.unstubAllEnvs();
      }
    });
    afterAll(async () => gateway?.close());

    /**
     * This instance has been silent for an hour (its last beat is that old: on PostgreSQL beats
     * are stamped and judged by the database's clock, so only the row can say so), and another
     * instance sweeps.
     */
    const sweepFromAnotherInstance = async () => {
      await backdateHeartbeat(gateway.test.context.store.db, gateway.test.context.ledger.options.instanceId, 3_600_000);
      return new Ledger({ store: gateway.test.context.store, clock: systemClock, createId }, { instanceId: createId('ins'), instanceTimeoutMs: 15_000 }).sweep();
    };
    const instanceRows = () => gateway.test.context.store.db.selectFrom('instances').select('id').where('id', '=', gateway.test.context.ledger.options.instanceId).execute();

    /** Until `count` requests are at the (slow) provider: each reserved before it was sent. */
    const waitForProviderCalls = async (count: number) => {
      const deadline = Date.now() + 10_000;
      while (gateway.simulator.stats().open < count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    };

    const inFlight = (key: string, text: string, stream: boolean) =>
      sendJson(gateway, key, 'POST', '/v1/chat/completions', {
        model: 'sim/openai-model',
        max_tokens: 20,
        stream,
        ...(stream && { stream_options: { include_usage: true } }),
        messages: [{ role: 'user', content: text }],
      }).then(async (response) => {
        const body = await response.text();
        const usage = stream ? JSON.parse(body.split('\n').filter((line) => line.startsWith('data: {')).at(-1)!.slice(6)).usage : JSON.parse(body).usage;
        return { status: response.status, id: response.headers.get('x-request-id')!, usage };
      });
    const entriesOf = async (requestId: string) => {
      const rows = await gateway.test.context.store.db.selectFrom('ledger_entries').select(['kind', 'amount']).where('request_id', '=', requestId).execute();
      return Object.fromEntries(rows.map((row) => [row.kind, BigInt(row.amount)]));
    };

    for (const stream of [false, true]) {
      it(`charges the actual cost of requests whose reservation was swept, never zero (${stream ? 'stream' : 'JSON'})`, async () => {
        const before = await readAccountMoney(gateway);
        const requests = [inFlight(gateway.key, 'hello there', stream), inFlight(gateway.key, 'general kenobi', stream)];
        // Both requests reserved and waiting on the (slow) provider: on a busy machine that takes
        // longer than any fixed pause, so wait for the provider to have both.
        await waitForProviderCalls(2);
        expect(gateway.simulator.stats().open).toBe(2);
        expect((await readAccountMoney(gateway)).reserved).toBeGreaterThan(0n);
        // The exact path holds a row per request; with leases both reserved out of the one lease row.
        expect(await sweepFromAnotherInstance()).toBe(leases ? 1 : 2);
        expect(await instanceRows()).toEqual([]);
        expect((await readAccountMoney(gateway)).reserved).toBe(0n);

        const answers = await Promise.all(requests);
        let total = 0n;
        for (const answer of answers) {
          expect(answer.status).toBe(200);
          const cost = BigInt(answer.usage.prompt_tokens) * 1_000n + BigInt(answer.usage.completion_tokens) * 2_000n;
          expect(cost).toBeGreaterThan(0n);
          expect(await entriesOf(answer.id)).toEqual({ charge: cost });
          total += cost;
        }
        const after = await readAccountMoney(gateway);
        expect(after.usage - before.usage).toBe(total);
        expect(after.reserved).toBe(0n);

        // The instance learns it was declared dead and registers again.
        const fencedBefore = gateway.test.context.ledger.fenced;
        expect(await gateway.test.context.ledger.heartbeat()).toBe(false);
        expect(gateway.test.context.ledger.fenced).toBe(fencedBefore + 1);
        expect(await instanceRows()).toHaveLength(1);
        expect(await gateway.test.context.ledger.heartbeat()).toBe(true);
      });
    }

    it('books the part the funds no longer cover as uncollected when the reservation was swept', async () => {
      const poor = await gateway.test.createAccount({ credits: 0.0001 }); // 100,000 nano-USD
      const request = inFlight(poor.key, 'hi [[sim:extra_prompt_tokens=1000]]', false);
      // A balance this small is reserved exactly, per request, leases or not.
      await waitForProviderCalls(1);
      expect(await sweepFromAnotherInstance()).toBe(1);
      const answer = await request;
      const cost = BigInt(answer.usage.prompt_tokens) * 1_000n + BigInt(answer.usage.completion_tokens) * 2_000n;
      expect(await entriesOf(answer.id)).toEqual({ charge: 100_000n, uncollected: cost - 100_000n });
      expect(await readAccountMoney(gateway, poor.accountId)).toMatchObject({ usage: 100_000n, reserved: 0n, credits: 100_000n });
      await gateway.test.context.ledger.heartbeat();
    });
  });
}
