import { closeSync, openSync, unlinkSync, writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { encodeBatch } from '../api/redemption/routes.js';
import { systemClock } from '../core/clock.js';
import { createId } from '../core/ids.js';
import { listBatches } from '../redemption/batches.js';
import { createBatch, maxBatchCount } from '../redemption/create-batch.js';
import { parseUsd, withStore } from './admin-commands.js';

/**
 * `switchyard admin redemption-codes create|list`: what `POST`/`GET /admin/redemption-codes` do,
 * straight on the database. The codes exist in clear only in what `create` prints (or writes to
 * `--out`, a new file readable by its owner alone).
 */
export function registerRedemptionCommands(admin: Command): void {
  const codes = admin.command('redemption-codes').description('batches of redemption codes: create them (the codes are shown once) and list them');

  codes
    .command('create')
    .description('create a batch of codes, each crediting --amount USD once, and print them (or write them, one per line, to --out)')
    .requiredOption('--amount <usd>', 'USD each code credits')
    .requiredOption('--count <n>', `how many codes (1 to ${maxBatchCount})`)
    .option('--expires-at <time>', 'ISO 8601 time after which the codes redeem nothing, e.g. 2027-01-31T23:59:59Z')
    .option('--note <text>', "the operator's note on the batch")
    .option('--out <file>', 'write the codes to this new file instead of printing them')
    .action((options: { amount: string; count: string; expiresAt?: string; note?: string; out?: string }) =>
      withStore(async (store) => {
        const count = Number(options.count);
        const expiresAt = options.expiresAt === undefined ? null : Date.parse(options.expiresAt);
        if (expiresAt !== null && Number.isNaN(expiresAt)) throw new Error(`--expires-at must be an ISO 8601 time, got ${options.expiresAt}`);
        // The file is made first ('wx': never over an existing one, such as an earlier batch's
        // codes; 0600: the codes are money), so that a bad path fails before any code exists.
        const file = options.out === undefined ? undefined : openSync(options.out, 'wx', 0o600);
        try {
          const { batch, codes: created } = await createBatch(
            { store, clock: systemClock, createId },
            { amount: parseUsd(options.amount), count, expiresAt: expiresAt === null ? null : new Date(expiresAt).toISOString(), note: options.note ?? null },
          );
          if (file === undefined) return { data: { ...encodeBatch(batch), codes: created } };
          writeFileSync(file, `${created.join('\n')}\n`);
          return { data: encodeBatch(batch), out: options.out };
        } catch (error) {
          if (file !== undefined) unlinkSync(options.out!);
          throw error;
        } finally {
          if (file !== undefined) closeSync(file);
        }
      }),
    );

  codes
    .command('list')
    .description('list batches, newest first, with how many of their codes were redeemed')
    .option('--limit <n>', 'batches per page', '50')
    .option('--cursor <batch-id>', 'the next_cursor of the previous page')
    .action((options: { limit: string; cursor?: string }) =>
      withStore(async (store) => {
        const limit = Number(options.limit);
        if (!Number.isInteger(limit) || limit < 1 || limit > 500) throw new Error(`--limit must be an integer from 1 to 500, got ${options.limit}`);
        const rows = await listBatches(store.db, { limit: limit + 1, cursor: options.cursor });
        const page = rows.slice(0, limit);
        return { data: page.map(encodeBatch), next_cursor: rows.length > limit ? page[page.length - 1].id : null };
      }),
    );
}
