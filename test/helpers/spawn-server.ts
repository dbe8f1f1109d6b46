import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';

/** The `switchyard` command as installed (builds the sources on first use). */
export const switchyardBin = resolve('bin/switchyard.js');

const children: ChildProcess[] = [];

/**
 * Starts `switchyard serve` on a free port (or `env.PORT`) and resolves once it prints its
 * listening line; the shutdown drain is 0 unless `env` sets SWITCHYARD_SHUTDOWN_DRAIN_MS;
 * `nodeFlags` go to node itself (e.g. `--trace-gc`, which NODE_OPTIONS refuses).
 * Every server started here is killed by `killSpawnedServers` (call it in afterAll).
 */
export function spawnServer(env: NodeJS.ProcessEnv, cwd?: string, nodeFlags: string[] = []): Promise<{ child: ChildProcess; url: string }> {
  // No drain period unless a test asks for one: only a balancer needs `/ready` to say 503 first.
  // No warm-up either (a second of start-up per server), unless a test asks for it: a variable
  // given as undefined is left out, so `serve` applies its own default.
  const child = spawn(process.execPath, [...nodeFlags, switchyardBin, 'serve'], { env: { ...process.env, PORT: '0', SWITCHYARD_SHUTDOWN_DRAIN_MS: '0', SWITCHYARD_WARMUP_REQUESTS: '0', ...env }, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  return new Promise((resolvePromise, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`server did not start: ${output}`)), 120_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolvePromise({ child, url: match[1] });
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}: ${output}`));
    });
  });
}

/**
 * Starts `switchyard simulate` in a process of its own, for load tests in which the simulator
 * must not share the test's event loop with the clients and the balancer.
 */
export function spawnSimulator(options: { latencyMs: number; tokensPerSecond: number }): Promise<{ child: ChildProcess; url: string }> {
  const args = [switchyardBin, 'simulate', '--port', '0', '--latency', String(options.latencyMs), '--tps', String(options.tokensPerSecond)];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  return new Promise((resolvePromise, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`simulator did not start: ${output}`)), 120_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /simulator listening on (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolvePromise({ child, url: match[1] });
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`simulator exited with ${code}: ${output}`));
    });
  });
}

export function killSpawnedServers(): void {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
}
