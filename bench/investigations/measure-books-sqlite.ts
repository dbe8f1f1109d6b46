// What the SQLite books cost a settlement, in one process, and what each commit writes:
//
//   node --import tsx bench/investigations/measure-books-sqlite.ts [--rounds 3] [--batches 6000] [--size 10] [--gap-ms 0]
//
// The books writer of the gateway (`writeBooksSqlite`, its prepared statements, the store's own
// settings, migrations and background checkpoints) writes batches of `size` settlements out of one
// lease row, each with its request row (~10 a batch is what the benchmark's load makes). Two
// orders of the rows: `start` (each batch's ids newer than the last batch's, as if requests ended
// in the order they began) and `completion` (ids drawn at random from the 32 oldest not yet
// written: 32 requests in flight, ending out of order, as under the benchmark's load). Reports, per
// order, the medians of the rounds (which alternate between the orders): CPU µs per settlement
// (this process's user + system, the checkpoint thread included) and its system part; then, for a
// sample of 300 batches with the checkpoints held off, the write-ahead log's frames per commit,
// in all and by table or index. Each frame is one page written (and later copied back by a
// checkpoint), one `pwrite` system call. `--gap-ms N` leaves the thread idle N ms after each
// measured batch, as a server's pace does (~2 ms at the benchmark's load): the same work, done
// cold, costs about twice as much.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { BookItem, BooksBatch } from '../../src/billing/plan-books.js';
import type { RequestRecord } from '../../src/billing/request-record.js';
import { writeBooksSqlite } from '../../src/billing/write-books-sqlite.js';
import { createId } from '../../src/core/ids.js';
import { createStore, migrateToLatest, type Store } from '../../src/store/create-store.js';
import { seedLeaseBooks } from './lease-books.js';
import { round } from '../process-stats.js';
import { framesByOwner, readPageOwners, readWalCommits } from './read-wal-frames.js';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '3' }, batches: { type: 'string', default: '6000' }, size: { type: 'string', default: '10' }, 'gap-ms': { type: 'string', default: '0' } } });
const rounds = Number(values.rounds);
const batches = Number(values.batches);
const size = Number(values.size);
const gapMs = Number(values['gap-ms']);
const orders = ['start', 'completion'] as const;
type Order = (typeof orders)[number];
const inFlight = 32;
const cost = 700n;

interface Books {
  store: Store;
  batch(): BooksBatch;
}

async function openBooks(path: string, order: Order, backgroundCheckpoints: boolean): Promise<Books> {
  const store = await createStore(`sqlite:${path}`, { backgroundCheckpoints });
  await migrateToLatest(store);
  const lease = await seedLeaseBooks(store, cost);
  const record = (): RequestRecord => lease.record(createId('req'));
  const waiting: RequestRecord[] = [];
  const next = (): RequestRecord => {
    if (order === 'start') return record();
    while (waiting.length < inFlight) waiting.push(record());
    return waiting.splice(Math.floor(Math.random() * waiting.length), 1)[0];
  };
  return {
    store,
    batch() {
      const items: BookItem[] = Array.from({ length: size }, () => {
        const row = next();
        return { row, settlement: lease.settlement(row.id, cost) };
      });
      return { items, createdAt: new Date().toISOString(), ledgerId: () => createId('led') };
    },
  };
}

async function measureCpu(order: Order): Promise<{ micros: number; systemMicros: number }> {
  const directory = await mkdtemp(join(tmpdir(), 'switchyard-books-sqlite-'));
  const books = await openBooks(join(directory, 'books.sqlite'), order, true);
  try {
    const database = books.store.sqlite!;
    // Warm-up: the statements, V8's tiers, the page cache.
    for (let index = 0; index < Math.min(1000, batches); index += 1) writeBooksSqlite(database, books.batch());
    const before = process.cpuUsage();
    for (let index = 0; index < batches; index += 1) {
      writeBooksSqlite(database, books.batch());
      if (gapMs > 0) await new Promise((resolve) => setTimeout(resolve, gapMs));
      // Let the event loop turn now and then, as the gateway's does between batches.
      else if (index % 20 === 19) await new Promise((resolve) => setImmediate(resolve));
    }
    const used = process.cpuUsage(before);
    return { micros: (used.user + used.system) / (batches * size), systemMicros: used.system / (batches * size) };
  } finally {
    await books.store.close();
    await rm(directory, { recursive: true, force: true });
  }
}

async function sampleFrames(order: Order): Promise<{ framesPerCommit: number; byOwner: Array<{ owner: string; framesPerCommit: number }> }> {
  const directory = await mkdtemp(join(tmpdir(), 'switchyard-books-frames-'));
  const path = join(directory, 'books.sqlite');
  const books = await openBooks(path, order, false);
  try {
    const database = books.store.sqlite!;
    // Grown first, so that the sample sees the tables' right edges at a realistic depth.
    for (let index = 0; index < 2000; index += 1) writeBooksSqlite(database, books.batch());
    database.pragma('wal_autocheckpoint = 0');
    database.pragma('wal_checkpoint(TRUNCATE)');
    const sample = 300;
    for (let index = 0; index < sample; index += 1) writeBooksSqlite(database, books.batch());
    const commits = readWalCommits(`${path}-wal`);
    if (commits.length !== sample) throw new Error(`expected ${sample} commits in the log, read ${commits.length}`);
    const frames = commits.reduce((sum, commit) => sum + commit.length, 0);
    return { framesPerCommit: frames / commits.length, byOwner: framesByOwner(commits, readPageOwners(database)) };
  } finally {
    await books.store.close();
    await rm(directory, { recursive: true, force: true });
  }
}

const median = (numbers: number[]) => [...numbers].sort((a, b) => a - b)[numbers.length >> 1];
const cpu = new Map<Order, Array<{ micros: number; systemMicros: number }>>(orders.map((order) => [order, []]));
for (let round = 0; round < rounds; round += 1) {
  for (const order of round % 2 === 0 ? orders : [...orders].reverse()) cpu.get(order)!.push(await measureCpu(order));
  process.stdout.write(`round ${round + 1}: ${orders.map((order) => `${order} ${cpu.get(order)!.at(-1)!.micros.toFixed(1)} µs`).join(', ')} per settlement\n`);
}
const report: Record<string, unknown> = { rounds, batches, size, gapMs };
for (const order of orders) {
  const frames = await sampleFrames(order);
  report[order] = {
    cpuMicrosPerSettlement: round(median(cpu.get(order)!.map((one) => one.micros)), 1),
    systemMicrosPerSettlement: round(median(cpu.get(order)!.map((one) => one.systemMicros)), 1),
    walFramesPerCommit: round(frames.framesPerCommit, 1),
    walFramesPerSettlement: round(frames.framesPerCommit / size, 2),
    walFramesPerCommitBy: Object.fromEntries(frames.byOwner.filter((one) => one.framesPerCommit >= 0.05).map((one) => [one.owner, round(one.framesPerCommit, 2)])),
  };
}
process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
