import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountFreeSql, keyFreeSql, memberFreeSql } from '../../src/billing/db/free-funds.js';
import { openTestStore, type TestStore } from '../helpers/open-test-store.js';

/**
 * Issue 47: the free-funds rule (credits − usage − reserved; a key's limit − usage − reserved) is
 * written once, in `billing/db/free-funds.ts`, and every statement interpolates it. A copy in any
 * spelling over the columns — SQL, qualified columns, or the row's values subtracted in
 * TypeScript — fails here. The migrations are history (what they wrote is checked below, in the
 * database), and test files are oracles that recompute the rule on purpose.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const source = join(root, 'src');
const rules = {
  account: /total_credits\)?\s*-\s*[\w.()]*?total_usage/g,
  // `usage` or `period_usage` (issue 49: what a key's limit counts, reset by period).
  key: /spend_limit\)?\s*-\s*[\w.()]*?usage\b/g,
};

function copiesOf(rule: RegExp): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(source, { recursive: true, encoding: 'utf8' })) {
    const path = join(source, entry);
    const name = relative(root, path).split('\\').join('/');
    if (!name.endsWith('.ts') || name.endsWith('.test.ts') || name.startsWith('src/store/migrations/')) continue;
    for (const _ of readFileSync(path, 'utf8').matchAll(rule)) found.push(name);
  }
  return found;
}

describe('the free-funds rule, once', () => {
  it('is written in src/ exactly once for the account and once for the key, in billing/db/free-funds.ts', () => {
    expect(copiesOf(rules.account)).toEqual(['src/billing/db/free-funds.ts']);
    expect(copiesOf(rules.key)).toEqual(['src/billing/db/free-funds.ts']);
  });

  it('the patterns find the texts the statements use', () => {
    expect(accountFreeSql.match(rules.account)).toHaveLength(1);
    expect(keyFreeSql.match(rules.key)).toHaveLength(1);
  });
});

const postgresUrl = process.env.TEST_DATABASE_URL;
if (!postgresUrl) process.stdout.write('PostgreSQL tests SKIPPED: set TEST_DATABASE_URL=postgres://… to run them\n');

/**
 * PostgreSQL's reserve check is a PL/pgSQL function a migration wrote (`switchyard_reserve_many`),
 * the one copy of the rule outside `free-funds.ts`: the function the migrated database runs must
 * check with the same texts, and no other function may hold a copy. A change of the rule that
 * leaves the function behind fails here until a new migration replaces it.
 */
describe.skipIf(!postgresUrl)('the free-funds rule in the PostgreSQL functions', () => {
  let test: TestStore;
  beforeAll(async () => {
    test = await openTestStore({ name: 'postgres', url: postgresUrl! });
  });
  afterAll(async () => test?.close());

  it('switchyard_reserve_many checks with the texts of free-funds.ts, and no other function has the rule', async () => {
    const functions = await test.store.pool!.query<{ name: string; body: string }>(
      `select p.proname as name, p.prosrc as body from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname = current_schema()`,
    );
    const withRule = functions.rows.filter((row) => row.body.match(rules.account) || row.body.match(rules.key)).map((row) => row.name);
    expect(withRule).toEqual(['switchyard_reserve_many']);
    const body = functions.rows.find((row) => row.name === 'switchyard_reserve_many')!.body;
    expect(body).toContain(`and ${accountFreeSql} >= p_amounts[i]`);
    expect(body).toContain(`(spend_limit is null or ${keyFreeSql} >= p_amounts[i])`);
    // Issue 49: the member's limit, checked after the key's with the same rule over the membership row.
    expect(body).toContain(`spend_limit is not null and ${memberFreeSql} < 0`);
    expect(body.match(rules.account)).toHaveLength(1);
    expect(body.match(rules.key)).toHaveLength(2);
  });
});
