import type { Socket } from 'node:net';
import type pg from 'pg';

/**
 * Counts the socket writes of every connection the pool hands out from now until `stop()`: what
 * a books batch costs in system calls, seen where it leaves.
 */
export function countPoolWrites(pool: pg.Pool): { writes: string[]; stop(): void } {
  const writes: string[] = [];
  const restores: Array<() => void> = [];
  const onAcquire = (client: pg.PoolClient) => {
    const socket = (client as unknown as { connection: { stream: Socket & { _write: Function; _writev: Function } } }).connection.stream;
    const write = socket._write;
    const writev = socket._writev;
    socket._write = function (this: Socket, ...args: unknown[]) {
      writes.push('write');
      return write.apply(this, args);
    };
    socket._writev = function (this: Socket, ...args: unknown[]) {
      writes.push('writev');
      return writev.apply(this, args);
    };
    restores.push(() => {
      socket._write = write;
      socket._writev = writev;
    });
  };
  pool.on('acquire', onAcquire);
  return {
    writes,
    stop() {
      pool.off('acquire', onAcquire);
      for (const restore of restores) restore();
    },
  };
}

/**
 * How often PostgreSQL planned the prepared statements named like `pattern` (a LIKE pattern) by
 * their generic plan and by a custom one, summed over every connection of the pool (prepared
 * statements belong to a connection: all are checked out at once to read each).
 */
export async function countPreparedPlans(pool: pg.Pool, ...patterns: string[]): Promise<{ generic: number; custom: number }> {
  const clients = await Promise.all(Array.from({ length: pool.options.max }, () => pool.connect()));
  const plans = { generic: 0, custom: 0 };
  try {
    for (const client of clients) {
      const result = await client.query<{ generic: string; custom: string }>(
        `select coalesce(sum(generic_plans), 0)::text as generic, coalesce(sum(custom_plans), 0)::text as custom from pg_prepared_statements where name like any($1::text[])`,
        [patterns],
      );
      plans.generic += Number(result.rows[0].generic);
      plans.custom += Number(result.rows[0].custom);
    }
  } finally {
    for (const client of clients) client.release();
  }
  return plans;
}
