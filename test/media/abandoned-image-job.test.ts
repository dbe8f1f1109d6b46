import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabases } from '../helpers/test-databases.js';
import { chargesOf, driveTask, readMoney, startMediaGateway, type MediaGateway } from './media-gateway.js';

const nano = (usd: number) => BigInt(Math.round(usd * 1e9));

for (const database of testDatabases()) {
  describe(`a client that leaves while a queued image job runs (${database.name})`, () => {
    let gateway: MediaGateway;
    beforeAll(async () => {
      gateway = await startMediaGateway({ databaseUrl: database.url, syncWindowMs: 5_000 });
    });
    afterAll(() => gateway?.close());

    it('keeps the job as a task, which completes and is charged once, instead of releasing while the provider works on', async () => {
      const before = await readMoney(gateway);
      const controller = new AbortController();
      const pending = fetch(`${gateway.url}/v1/images/generations`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gateway.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'sim/flux', prompt: 'abandoned [[sim:job_ms=800]]', n: 1 }),
        signal: controller.signal,
      }).catch(() => undefined);
      // Let the job reach the provider, then leave inside the synchronous window.
      const { db } = gateway.test.context.store;
      let task: { id: string; request_id: string | null } | undefined;
      setTimeout(() => controller.abort(), 250);
      await pending;
      for (let attempt = 0; attempt < 100 && !task; attempt += 1) {
        task = await db.selectFrom('tasks').select(['id', 'request_id']).where('account_id', '=', gateway.accountId).executeTakeFirst();
        if (!task) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(task).toBeDefined();
      expect(await driveTask(gateway, task!.id)).toBe('completed');
      const after = await readMoney(gateway);
      expect(after.reserved).toBe(0n);
      expect(after.usage - before.usage).toBe(nano(0.025));
      expect(await chargesOf(gateway, task!.request_id!)).toEqual([nano(0.025)]);
    });
  });
}
