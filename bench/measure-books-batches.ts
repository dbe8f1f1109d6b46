// A/B of the PostgreSQL settlement batch writer of two trees, in one process on this machine:
//
//   node --import tsx bench/measure-books-batches.ts --base DIR [--head DIR] [--rounds 5] [--batches 200] [--size 16]
//        [--database-url URL (default BENCH_DATABASE_URL)]
//
// Each tree's own `writeBooks` (and store: pool, watched client, migrations) writes batches of
// `size` settlements with their request rows, one hot account and key, each settlement out of
// the instance's lease row (the default, docs/leases.md), in a schema of its own (dropped
// afterwards). The rounds alternate between the trees so that a machine whose speed drifts
// (shared cores) moves both alike. Per batch it reports this process's CPU (the gateway's side
// of a batch: building the statements, the pg protocol, the answers) and the wall time until
// the batch is committed (its latency, which every settlement of the batch waits for); then the
// head/base medians, and checks that each tree's books are exact.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    base: { type: 'string' },
    head: { type: 'string', default: '.' },
    rounds: { type: 'string', default: '5' },
    batches: { type: 'string', default: '200' },
    size: { type: 'string', default: '16' },
    'database-url': { type: 'string', default: process.env.BENCH_DATABASE_URL },
  },
});
if (!values.base) throw new Error('--base DIR (a work tree) is required');
const databaseUrl = values['database-url'];
if (!databaseUrl) throw new Error('--database-url or BENCH_DATABASE_URL is required');
const rounds = Number(values.rounds);
const batches = Number(values.batches);
const size = Number(values.size);
const COST = 700n;

interface Build {
  name: string;
  store: { pool?: { query(text: string, values?: unknown[]): Promise<{ rows: Array<Record<string, unknown>> }> }; close(): Promise<void> };
  writeBooks(store: unknown, batch: unknown): Promise<Array<{ charged: bigint; applied: boolean }>>;
  reserveOnce(store: unknown, input: unknown): Promise<unknown>;
  cpu: number[];
  wall: number[];
  settled: number;
}

async function load(name: string, root: string): Promise<Build> {
  const { createStore, migrateToLatest } = await import(`${root}/src/store/create-store.ts`);
  const { writeBooks } = await import(`${root}/src/billing/write-books.ts`);
  const { reserveOnce } = await import(`${root}/src/billing/reserve-funds.ts`);
  const schema = `books_ab_${name}_${process.pid}`;
  const store = await createStore(databaseUrl!, { schema, poolSize: 4 });
  await migrateToLatest(store);
  const at = '2026-11-26T00:00:00.000Z';
  await store.pool.query(`insert into accounts (id, name, created_at, total_credits, total_usage, reserved) values ('acc_ab', 'ab', $1, $2, 0, 0)`, [at, (10n ** 15n).toString()]);
  await store.pool.query(
    `insert into api_keys (id, account_id, name, label, hash, management, created_at, spend_limit, usage, reserved, model_max_prices) values ('key_ab', 'acc_ab', 'ab', 'ab', 'hash-ab', 0, $1, $2, 0, 0, '{}')`,
    [at, (10n ** 15n).toString()],
  );
  return { name, store, writeBooks, reserveOnce, cpu: [], wall: [], settled: 0 };
}

function record(id: string, createdAt: string) {
  return {
    id,
    accountId: 'acc_ab',
    keyId: 'key_ab',
    model: 'bench/gpt-sim',
    provider: 'sim',
    endpoint: '/v1/chat/completions',
    streamed: false,
    status: 'completed',
    errorCode: null,
    latencyMs: 12,
    promptTokens: 20,
    completionTokens: 16,
    cachedTokens: 0,
    reasoningTokens: 0,
    cost: COST,
    estimated: false,
    createdAt,
  };
}

async function round(build: Build, index: number): Promise<void> {
  const lease = `lse_${build.name}_${index}`;
  const now = new Date();
  await build.reserveOnce(build.store, {
    id: lease,
    accountId: 'acc_ab',
    keyId: 'key_ab',
    requestId: `req_${lease}`,
    amount: 1_000n * BigInt(batches * size),
    createdAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + 600_000).toISOString(),
    instanceId: null,
  });
  let ledger = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let batch = 0; batch < batches; batch += 1) {
    const createdAt = new Date().toISOString();
    const items = Array.from({ length: size }, (_, item) => {
      const requestId = `req_${build.name}_${index}_${batch}_${item}`;
      return { row: record(requestId, createdAt), settlement: { reservationId: lease, leaseHeld: 1_000n, accountId: 'acc_ab', keyId: 'key_ab', requestId, cost: COST } };
    });
    const outcomes = await build.writeBooks(build.store, { items, createdAt, ledgerId: () => `led_${build.name}_${index}_${(ledger += 1)}` });
    for (const outcome of outcomes) if (outcome.applied && outcome.charged === COST) build.settled += 1;
  }
  const wall = performance.now() - started;
  const used = process.cpuUsage(cpu);
  build.cpu.push((used.user + used.system) / batches);
  build.wall.push((wall * 1000) / batches);
  // The lease's remainder goes back, as an instance gives its lease back.
  await build.store.pool!.query(
    `with gone as (delete from reservations where id = $1 returning amount) update accounts set reserved = reserved - (select amount from gone) where id = 'acc_ab'`,
    [lease],
  );
  await build.store.pool!.query(`update api_keys set reserved = 0 where id = 'key_ab'`);
}

async function exact(build: Build): Promise<string> {
  const { rows } = await build.store.pool!.query(`select
      (select coalesce(sum(amount), 0) from ledger_entries where kind = 'charge')::text as charges,
      (select coalesce(sum(cost), 0) from requests)::text as costs,
      (select coalesce(sum(cost), 0) from usage_rollups)::text as rollups,
      (select total_usage from accounts where id = 'acc_ab')::text as usage,
      (select reserved from accounts where id = 'acc_ab')::text as reserved,
      (select count(*) from reservations)::int as open`);
  const row = rows[0] as { charges: string; costs: string; rollups: string; usage: string; reserved: string; open: number };
  const expected = (COST * BigInt(build.settled)).toString();
  const ok = [row.charges, row.costs, row.rollups, row.usage].every((value) => value === expected) && row.reserved === '0' && row.open === 0;
  return `${ok ? 'exact' : 'NOT EXACT'} (${JSON.stringify({ ...row, expected })})`;
}

const builds = [await load('base', resolve(values.base)), await load('head', resolve(values.head!))];
try {
  // A first round of each, not counted: connections, prepared statements, JIT.
  for (const build of builds) await round(build, 0);
  for (const build of builds) {
    build.cpu.length = 0;
    build.wall.length = 0;
  }
  for (let index = 1; index <= rounds; index += 1) {
    const order = index % 2 === 0 ? builds : [...builds].reverse();
    for (const build of order) await round(build, index);
    console.log(`round ${index}: ${builds.map((build) => `${build.name} ${build.cpu.at(-1)!.toFixed(0)} µs CPU, ${build.wall.at(-1)!.toFixed(0)} µs wall per batch`).join('; ')}`);
  }
  const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
  const [base, head] = builds;
  const ratios = (pick: (build: Build) => number[]) => pick(head).map((value, index) => value / pick(base)[index]);
  for (const build of builds) {
    console.log(`${build.name}: median ${median(build.cpu).toFixed(0)} µs CPU, ${median(build.wall).toFixed(0)} µs wall per batch of ${size} (${(median(build.cpu) / size).toFixed(1)} µs CPU per settlement); books ${await exact(build)}`);
  }
  console.log(`head / base: CPU per batch median ${median(ratios((build) => build.cpu)).toFixed(3)}, wall per batch median ${median(ratios((build) => build.wall)).toFixed(3)}`);
} finally {
  for (const build of builds) {
    await build.store.pool!.query(`drop schema if exists books_ab_${build.name}_${process.pid} cascade`).catch(() => undefined);
    await build.store.close();
  }
}
