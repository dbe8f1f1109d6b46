import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, Socket, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/**
 * Database servers of a test's own, for fault tests that stop, silence or kill them (never the
 * shared ones): a PostgreSQL cluster made with initdb in a temporary directory, a redis-server,
 * and a TCP proxy that can stop forwarding (a database that drops packets).
 */
export interface OwnPostgres {
  port: number;
  url: string;
  start(): void;
  /** `fast`: refuses connections from now on; `immediate`: like a crash. */
  stop(mode?: 'fast' | 'immediate'): void;
  /** Ends every other session, as a failover or restart does. */
  terminateBackends(): Promise<number>;
  destroy(): void;
}

const postgresBin = (() => {
  const listed = spawnSync('sh', ['-c', 'ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1'], { encoding: 'utf8' }).stdout.trim();
  return listed || '/usr/lib/postgresql/15/bin';
})();

/** Whether this machine can run a private PostgreSQL (the Debian binaries and a `postgres` user). */
export function canRunOwnPostgres(): boolean {
  return spawnSync(join(postgresBin, 'initdb'), ['--version']).status === 0 && spawnSync('id', ['-u', 'postgres']).status === 0;
}

function asPostgres(command: string, args: string[]): void {
  const root = process.getuid?.() === 0;
  const result = root ? spawnSync('runuser', ['-u', 'postgres', '--', command, ...args], { encoding: 'utf8' }) : spawnSync(command, args, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${result.stderr || result.stdout}`);
}

export async function startOwnPostgres(): Promise<OwnPostgres> {
  const directory = mkdtempSync(join(tmpdir(), 'switchyard-own-pg-'));
  chmodSync(directory, 0o755);
  if (process.getuid?.() === 0) {
    const uid = Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout);
    const gid = Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout);
    chownSync(directory, uid, gid);
  }
  const data = join(directory, 'data');
  const port = await freePort();
  asPostgres(join(postgresBin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const options = `-p ${port} -k ${directory} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100`;
  const own: OwnPostgres = {
    port,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start: () => asPostgres(join(postgresBin, 'pg_ctl'), ['-D', data, '-o', options, '-l', join(directory, 'log'), '-w', 'start']),
    stop: (mode = 'fast') => asPostgres(join(postgresBin, 'pg_ctl'), ['-D', data, '-m', mode, '-w', 'stop']),
    async terminateBackends() {
      const client = new pg.Client({ connectionString: own.url });
      await client.connect();
      const result = await client.query(`select pg_terminate_backend(pid) from pg_stat_activity where pid <> pg_backend_pid() and backend_type = 'client backend'`);
      await client.end();
      return result.rowCount ?? 0;
    },
    destroy() {
      try {
        own.stop('immediate');
      } catch {
        // already stopped
      }
      rmSync(directory, { recursive: true, force: true });
    },
  };
  own.start();
  return own;
}

export interface OwnRedis {
  port: number;
  url: string;
  start(): Promise<void>;
  kill(): void;
}

export async function startOwnRedis(): Promise<OwnRedis> {
  const port = await freePort();
  const directory = mkdtempSync(join(tmpdir(), 'switchyard-own-redis-'));
  let child: ChildProcess | undefined;
  const own: OwnRedis = {
    port,
    url: `redis://127.0.0.1:${port}`,
    async start() {
      child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', directory], { stdio: 'ignore' });
      for (let attempt = 0; attempt < 100; attempt += 1) {
        if (await canConnect(port)) return;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error('redis-server did not start');
    },
    kill() {
      if (child && child.exitCode === null) child.kill('SIGKILL');
      child = undefined;
    },
  };
  await own.start();
  return own;
}

/** A TCP proxy to `targetPort` that can go silent: bytes are held, nothing is answered, no connection closes. */
export interface SilenceableProxy {
  port: number;
  silence(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startProxy(targetPort: number): Promise<SilenceableProxy> {
  let silent = false;
  const pairs = new Set<[Socket, Socket]>();
  const server: Server = createServer((client) => {
    const upstream = new Socket();
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    const forward = (from: Socket, to: Socket) =>
      from.on('data', (chunk) => {
        if (!silent) to.write(chunk);
      });
    forward(client, upstream);
    forward(upstream, client);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    upstream.connect(targetPort, '127.0.0.1');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    // Dropped packets: everything sent meanwhile is lost, as on a broken network.
    silence: () => {
      silent = true;
    },
    restore: () => {
      silent = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const [client, upstream] of pairs) {
          client.destroy();
          upstream.destroy();
        }
        server.close(() => resolve());
      }),
  };
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.connect(port, '127.0.0.1');
  });
}
