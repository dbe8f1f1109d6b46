import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { createWriteStream, rmSync, type WriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';

/** A process the benchmark started; every one is stopped by `cleanUp`, also on failure. */
export interface ManagedChild {
  name: string;
  pid: number;
  process: ChildProcess;
  /** Resolves with the exit code (or signal) once the process is gone. */
  exited: Promise<string>;
  /** The last few kilobytes of stdout and stderr, for error messages. */
  outputTail(): string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when the process is gone. */
  stop(graceMs?: number): Promise<void>;
}

const running = new Set<ManagedChild>();
const TAIL_CHARS = 4000;

export interface SpawnChildOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Also open an IPC channel (our own scripts use it to report results and to exit with us). */
  ipc?: boolean;
  /** Where stdout and stderr go besides the in-memory tail. */
  logFile?: string;
}

export function spawnChild(name: string, command: string, args: string[], options: SpawnChildOptions): ManagedChild {
  const stdio: StdioOptions = options.ipc ? ['ignore', 'pipe', 'pipe', 'ipc'] : ['ignore', 'pipe', 'pipe'];
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio });
  if (child.pid === undefined) throw new Error(`${name}: could not start ${command}`);
  const log: WriteStream | undefined = options.logFile ? createWriteStream(options.logFile) : undefined;
  let tail = '';
  const keep = (chunk: Buffer) => {
    log?.write(chunk);
    tail = (tail + chunk.toString('utf8')).slice(-TAIL_CHARS);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<string>((resolve) => {
    child.once('exit', (code, signal) => {
      running.delete(managed);
      log?.end();
      resolve(signal ?? `code ${code}`);
    });
  });
  const managed: ManagedChild = {
    name,
    pid: child.pid,
    process: child,
    exited,
    outputTail: () => tail,
    async stop(graceMs = 3000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(killer);
    },
  };
  running.add(managed);
  return managed;
}

const scratchDirectories = new Set<string>();

/** A temporary directory that `cleanUp` removes, also when the run is interrupted. */
export async function createScratchDirectory(prefix: string): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), prefix));
  scratchDirectories.add(directory);
  return directory;
}

/** Stops every child still running (each by its own pid), then removes the scratch directories. */
export async function cleanUp(): Promise<void> {
  await Promise.all([...running].map((child) => child.stop()));
  await Promise.all([...scratchDirectories].map((directory) => rm(directory, { recursive: true, force: true }).catch(() => {})));
  scratchDirectories.clear();
}

/** Last resort on process exit: synchronous, no waiting. */
export function cleanUpNow(): void {
  for (const child of running) child.process.kill('SIGKILL');
  for (const directory of scratchDirectories) rmSync(directory, { recursive: true, force: true });
}

/** A free loopback port (bound and released; a race with other programs is possible but harmless here). */
export async function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Polls `url` until it answers any HTTP status; fails early when the child exits. */
export async function waitForHttp(url: string, child: ManagedChild, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let gone: string | undefined;
  void child.exited.then((how) => (gone = how));
  for (let attempt = 0; Date.now() < deadline; attempt++) {
    if (gone) throw new Error(`${child.name} exited (${gone}) before answering ${url}:\n${child.outputTail()}`);
    try {
      const response = await request(url, { headersTimeout: 1000, bodyTimeout: 1000 });
      await response.body.dump();
      return;
    } catch {
      await sleep(Math.min(50 + attempt * 25, 250));
    }
  }
  throw new Error(`${child.name} did not answer ${url} within ${timeoutMs} ms:\n${child.outputTail()}`);
}

/** The environment for a child: ours without options that would change what is measured. */
export function childEnvironment(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  for (const name of ['NODE_OPTIONS', 'REDIS_URL', 'SWITCHYARD_ADMIN_TOKEN', 'SWITCHYARD_CONFIG', 'DATABASE_URL']) {
    if (!(name in extra)) delete env[name];
  }
  return env;
}
