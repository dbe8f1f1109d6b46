import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../test/helpers/manual-clock.js';
import { buildTestConfig } from '../../test/helpers/test-config.js';
import { dropTestSchema, testDatabases, uniqueSchemaName } from '../../test/helpers/test-databases.js';
import type { AppContext } from '../app-context.js';
import { createAccount } from '../accounts/create-account.js';
import { closeContext, createContext } from '../create-context.js';
import { UpstreamError } from '../errors/upstream-error.js';
import { videoTaskHandler } from '../videos/video-task-handler.js';
import { registerInstance } from '../store/repositories/instances.js';
import { endTask } from './finish-task.js';
import { TaskEngine } from './task-engine.js';
import type { PollOutcome, TaskHandler, TaskRecord } from './task-types.js';

const yaml = `
tasks:
  video: {max_age_seconds: 600, min_poll_seconds: 1, max_poll_seconds: 5}
providers: []
models: []
`;

/**
 * Two instances on one database, with one clock. On PostgreSQL two full app contexts (two
 * pools, two instance ids). On SQLite two engines on one connection: better-sqlite3 blocks the
 * thread while it waits for a lock, so two connections in one process would wait on each other;
 * separate processes (the real deployment) are covered by the kill -9 suite.
 */
async function openInstances(url: string) {
  const clock = new ManualClock(Date.parse('2026-11-21T00:00:00.000Z'));
  let databaseUrl = url;
  let schema: string | undefined;
  if (url.startsWith('postgres')) schema = uniqueSchemaName();
  else databaseUrl = `sqlite:${join(mkdtempSync(join(tmpdir(), 'tasks-')), 'tasks.db')}`;
  const options = { logger: pino({ level: 'silent' }), clock, store: { schema, poolSize: 5 }, tasks: { random: () => 0.5, leaseMs: 10_000 } };
  const open = () => createContext(buildTestConfig({ databaseUrl, yaml }), options);
  const first = await open();
  let second: AppContext;
  let closeSecond = async () => closeContext(second);
  if (schema) {
    second = await open();
  } else {
    const view: AppContext = { ...first };
    view.tasks = new TaskEngine(() => view, { ...options.tasks, instanceId: 'ins_second' });
    // A registered instance, or the first engine would take its leases as those of a dead one.
    await registerInstance(first.store.db, 'ins_second', clock.now().toISOString());
    view.tasks.registerHandler(videoTaskHandler);
    second = view;
    closeSecond = () => view.tasks.stop();
  }
  return {
    clock,
    contexts: [first, second] as const,
    async close() {
      await closeSecond();
      await closeContext(first);
      if (schema) await dropTestSchema(url, schema);
    },
  };
}

/** A scripted handler: answers pending `pendingPolls` times, then the outcome; counts polls in flight per task. */
function scriptedHandler(kind: string, script: { pendingPolls: number; outcome: PollOutcome; delayMs?: number }) {
  const polls = new Map<string, number>();
  const open = new Map<string, number>();
  let maxConcurrent = 0;
  const handler: TaskHandler = {
    kind,
    schedule: { minPollMs: 1_000, maxPollMs: 1_000, firstPollMs: 1_000 },
    async poll(task) {
      const inFlight = (open.get(task.id) ?? 0) + 1;
      open.set(task.id, inFlight);
      maxConcurrent = Math.max(maxConcurrent, inFlight);
      try {
        await new Promise((resolve) => setTimeout(resolve, script.delayMs ?? 5));
        const count = (polls.get(task.id) ?? 0) + 1;
        polls.set(task.id, count);
        return count <= script.pendingPolls ? { state: 'pending', progress: count * 10 } : script.outcome;
      } finally {
        open.set(task.id, open.get(task.id)! - 1);
      }
    },
  };
  return { handler, polls, maxConcurrent: () => maxConcurrent };
}

async function fundedAccount(context: AppContext, usd: number): Promise<string> {
  const { account } = await createAccount(context, { name: 'tasks', credits: BigInt(usd) * 1_000_000_000n });
  return account.id;
}

async function createSubmittedTask(context: AppContext, accountId: string, kind: string, amount: bigint): Promise<TaskRecord> {
  const reservation = await context.ledger.reserve({ accountId, keyId: null, requestId: context.createId('req'), amount, durable: true, lifetimeMs: context.tasks.reservationLifetimeMs(kind) });
  const created = await context.tasks.create({ accountId, keyId: null, kind, model: 'acme/model', provider: 'acme', input: {}, reservation, idempotencyKey: null, requestId: reservation.id.replace('rsv', 'req'), providerJobId: `job-${Math.random()}` });
  if (!created.created) throw new Error('not created');
  return created.task;
}

async function money(context: AppContext, accountId: string) {
  const row = await context.store.db.selectFrom('accounts').selectAll().where('id', '=', accountId).executeTakeFirstOrThrow();
  return { reserved: BigInt(row.reserved), usage: BigInt(row.total_usage) };
}

describe.each(testDatabases())('task engine on $name', ({ url }) => {
  let instances: Awaited<ReturnType<typeof openInstances>>;
  beforeAll(async () => {
    instances = await openInstances(url);
  });
  afterAll(async () => {
    await instances?.close();
  });

  it('lets two instances poll each task one at a time, and settles each task once', async () => {
    const [first, second] = instances.contexts;
    const script = scriptedHandler('race', { pendingPolls: 3, outcome: { state: 'completed', cost: 700_000_000n, result: { ok: true } }, delayMs: 15 });
    first.tasks.registerHandler(script.handler);
    second.tasks.registerHandler(script.handler);
    const accountId = await fundedAccount(first, 100);
    const tasks = await Promise.all(Array.from({ length: 12 }, () => createSubmittedTask(first, accountId, 'race', 1_000_000_000n)));
    expect((await money(first, accountId)).reserved).toBe(12_000_000_000n);
    for (let round = 0; round < 12; round += 1) {
      instances.clock.advance(1_500);
      await Promise.all([first.tasks.runOnce(), second.tasks.runOnce(), first.tasks.runOnce(), second.tasks.runOnce()]);
    }
    expect(script.maxConcurrent()).toBe(1);
    for (const task of tasks) {
      expect(script.polls.get(task.id)).toBe(4);
      expect(await first.tasks.find(accountId, task.id)).toMatchObject({ status: 'completed', cost: 700_000_000n, progress: 100, result: { ok: true } });
    }
    expect(await money(first, accountId)).toEqual({ reserved: 0n, usage: 12n * 700_000_000n });
    const charges = await first.store.db.selectFrom('ledger_entries').select('request_id').where('account_id', '=', accountId).where('kind', '=', 'charge').execute();
    expect(charges).toHaveLength(12);
  });

  it('settles a task through the books\' one rule: a cost above its reservation comes from the free funds, and what they cannot cover is uncollected', async () => {
    const [first] = instances.contexts;
    // 3 USD: 1 reserved by the first task, then 2 free.
    const accountId = await fundedAccount(first, 3);
    const above = await createSubmittedTask(first, accountId, 'race', 1_000_000_000n);
    expect(await endTask(first, above, { status: 'completed', cost: 1_500_000_000n, result: {} }, { endpoint: '/test' })).toBe(1_500_000_000n);
    expect(await money(first, accountId)).toEqual({ reserved: 0n, usage: 1_500_000_000n });
    // 1.5 USD left, 1 of it reserved; the task costs 2: 1.5 charged, 0.5 uncollected.
    const short = await createSubmittedTask(first, accountId, 'race', 1_000_000_000n);
    expect(await endTask(first, short, { status: 'completed', cost: 2_000_000_000n, result: {} }, { endpoint: '/test' })).toBe(1_500_000_000n);
    expect(await money(first, accountId)).toEqual({ reserved: 0n, usage: 3_000_000_000n });
    expect(await first.tasks.find(accountId, short.id)).toMatchObject({ status: 'completed', cost: 1_500_000_000n });
    const uncollected = await first.store.db.selectFrom('ledger_entries').select('amount').where('account_id', '=', accountId).where('kind', '=', 'uncollected').execute();
    expect(uncollected.map((entry) => BigInt(entry.amount))).toEqual([500_000_000n]);
    const logged = await first.store.db.selectFrom('requests').select('cost').where('account_id', '=', accountId).execute();
    expect(logged.map((row) => BigInt(row.cost)).sort()).toEqual([1_500_000_000n, 1_500_000_000n]);
  });

  it('ends a task exactly once when two callers race to end it', async () => {
    const [first, second] = instances.contexts;
    const accountId = await fundedAccount(first, 10);
    const task = await createSubmittedTask(first, accountId, 'race', 2_000_000_000n);
    const outcomes = await Promise.all([
      endTask(first, task, { status: 'completed', cost: 1_500_000_000n, result: {} }, { endpoint: '/test' }),
      endTask(second, task, { status: 'completed', cost: 1_500_000_000n, result: {} }, { endpoint: '/test' }),
      endTask(second, task, { status: 'failed', error: 'late', errorCode: 'provider_failed' }, { endpoint: '/test' }),
    ]);
    expect(outcomes.filter((outcome) => outcome !== null)).toHaveLength(1);
    const ended = await first.tasks.find(accountId, task.id);
    expect(ended!.status === 'completed' ? ended!.cost : 0n).toBe((await money(first, accountId)).usage);
    expect((await money(first, accountId)).reserved).toBe(0n);
  });

  it('backs off on provider failures, honouring Retry-After, and resets the count on an answer', async () => {
    const [first] = instances.contexts;
    let failing = true;
    first.tasks.registerHandler({
      kind: 'flaky',
      schedule: { minPollMs: 1_000, maxPollMs: 1_000, maxBackoffMs: 60_000 },
      async poll() {
        if (failing) throw new UpstreamError({ provider: 'acme', status: 503, message: 'down', retryAfterSeconds: 30 });
        return { state: 'pending' };
      },
    });
    const accountId = await fundedAccount(first, 10);
    const task = await createSubmittedTask(first, accountId, 'flaky', 1n);
    instances.clock.advance(1_000);
    await first.tasks.runOnce();
    let row = await first.store.db.selectFrom('tasks').selectAll().where('id', '=', task.id).executeTakeFirstOrThrow();
    expect(Number(row.attempts)).toBe(1);
    expect(Date.parse(row.next_poll_at) - instances.clock.now().getTime()).toBe(30_000);
    expect(row.lease_owner).toBeNull();
    instances.clock.advance(29_000);
    expect(await first.tasks.runOnce()).toBe(0);
    instances.clock.advance(1_000);
    await first.tasks.runOnce();
    instances.clock.advance(60_000);
    await first.tasks.runOnce();
    row = await first.store.db.selectFrom('tasks').selectAll().where('id', '=', task.id).executeTakeFirstOrThrow();
    expect(Number(row.attempts)).toBe(3);
    failing = false;
    instances.clock.advance(60_000);
    await first.tasks.runOnce();
    row = await first.store.db.selectFrom('tasks').selectAll().where('id', '=', task.id).executeTakeFirstOrThrow();
    expect(Number(row.attempts)).toBe(0);
    expect(row.status).toBe('queued');
  });

  it('fails and releases a task whose creator died before the provider confirmed it', async () => {
    const [first, second] = instances.contexts;
    const accountId = await fundedAccount(first, 10);
    // A request id as the gateway makes them (time-ordered): the failed task's request-log row
    // lands in the day's partition on PostgreSQL.
    const requestId = first.createId('req');
    const reservation = await first.ledger.reserve({ accountId, keyId: null, requestId, amount: 3_000_000_000n, durable: true });
    const created = await first.tasks.create({ accountId, keyId: null, kind: 'video', model: 'acme/video', provider: 'acme', input: {}, reservation, idempotencyKey: 'k', requestId, submitWithinMs: 20_000 });
    expect(created.created).toBe(true);
    const id = created.created ? created.task.id : '';
    // While the creator's submission lease runs, nobody touches the task.
    instances.clock.advance(10_000);
    await second.tasks.runOnce();
    expect(await second.tasks.find(accountId, id)).toMatchObject({ status: 'queued', providerJobId: null });
    instances.clock.advance(11_000);
    await second.tasks.runOnce();
    const task = await second.tasks.find(accountId, id);
    expect(task).toMatchObject({ status: 'failed', cost: 0n });
    expect(task!.error).toContain('interrupted');
    expect(await money(first, accountId)).toEqual({ reserved: 0n, usage: 0n });
    // Its idempotency key still names it.
    const again = await first.tasks.create({ accountId, keyId: null, kind: 'video', model: 'acme/video', provider: 'acme', input: {}, reservation: null, idempotencyKey: 'k', requestId: first.createId('req') });
    expect(again).toMatchObject({ created: false, existing: { id: task!.id } });
  });

  it("takes over the leases of an instance that is gone, but never a live instance's", async () => {
    const [first, second] = instances.contexts;
    const script = scriptedHandler('orphan', { pendingPolls: 0, outcome: { state: 'completed', cost: 5n, result: {} } });
    first.tasks.registerHandler(script.handler);
    second.tasks.registerHandler(script.handler);
    const accountId = await fundedAccount(first, 1);
    const [orphaned, held] = [await createSubmittedTask(first, accountId, 'orphan', 5n), await createSubmittedTask(first, accountId, 'orphan', 5n)];
    const leaseUntil = new Date(instances.clock.now().getTime() + 3_600_000).toISOString();
    await first.store.db.updateTable('tasks').set({ lease_owner: 'ins_killed', lease_expires_at: leaseUntil }).where('id', '=', orphaned.id).execute();
    await first.store.db.updateTable('tasks').set({ lease_owner: first.tasks.instanceId, lease_expires_at: leaseUntil }).where('id', '=', held.id).execute();
    instances.clock.advance(5_000);
    await second.tasks.runOnce();
    expect(await second.tasks.find(accountId, orphaned.id)).toMatchObject({ status: 'completed' });
    expect(await second.tasks.find(accountId, held.id)).toMatchObject({ status: 'queued' });
    expect(script.polls.get(held.id)).toBeUndefined();
  });

  it('fails a task at its maximum age, even while its provider is unreachable', async () => {
    const [first] = instances.contexts;
    first.tasks.registerHandler({
      kind: 'video',
      async poll() {
        throw new UpstreamError({ provider: 'acme', status: 0, message: 'unreachable' });
      },
    });
    const accountId = await fundedAccount(first, 10);
    const task = await createSubmittedTask(first, accountId, 'video', 4_000_000_000n);
    for (let minute = 0; minute < 11; minute += 1) {
      instances.clock.advance(60_000);
      await first.tasks.runOnce();
    }
    expect(await first.tasks.find(accountId, task.id)).toMatchObject({ status: 'failed', cost: 0n });
    expect(await money(first, accountId)).toEqual({ reserved: 0n, usage: 0n });
  });

  it('leaves a kind it has no handler for to other instances, and stop() waits for polls in flight', async () => {
    const [first, second] = instances.contexts;
    const accountId = await fundedAccount(first, 10);
    const task = await createSubmittedTask(first, accountId, 'unknown-kind', 1n);
    instances.clock.advance(5_000);
    await first.tasks.runOnce();
    expect(await first.tasks.find(accountId, task.id)).toMatchObject({ status: 'queued' });
    const row = await first.store.db.selectFrom('tasks').selectAll().where('id', '=', task.id).executeTakeFirstOrThrow();
    expect(row.lease_owner).toBeNull();
    expect(Date.parse(row.next_poll_at) - instances.clock.now().getTime()).toBe(60_000);

    const slow = scriptedHandler('slow', { pendingPolls: 0, outcome: { state: 'completed', cost: 1n, result: {} }, delayMs: 200 });
    second.tasks.registerHandler(slow.handler);
    const slowTask = await createSubmittedTask(second, accountId, 'slow', 1n);
    instances.clock.advance(5_000);
    const round = second.tasks.runOnce();
    await new Promise((resolve) => setTimeout(resolve, 50));
    await second.tasks.stop();
    await round;
    expect(await second.tasks.find(accountId, slowTask.id)).toMatchObject({ status: 'completed' });
  });
});
