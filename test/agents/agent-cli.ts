import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** Where `.ci/run` installs the agent CLIs (`npm ci --prefix test/agents/cli`); kept out of the root install for their size. */
export const agentCliDirectory = resolve('test/agents/cli');

export type AgentCli = 'claude' | 'codex' | 'qwen' | 'pi' | 'gemini';

export function agentCliPath(name: AgentCli): string {
  return join(agentCliDirectory, 'node_modules', '.bin', name);
}

/**
 * Whether an agent CLI can run here. Missing, the suite is skipped out loud locally, but under
 * CI=true it is a failure, never a silent skip.
 */
export function agentCliAvailable(name: AgentCli): boolean {
  if (existsSync(agentCliPath(name))) return true;
  const hint = `npm ci --prefix ${agentCliDirectory}`;
  if (process.env.CI === 'true') throw new Error(`The agent suite needs the ${name} CLI under CI; install it with: ${hint}`);
  process.stdout.write(`Agent CLI tests for ${name} SKIPPED: not installed (${hint})\n`);
  return false;
}

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a CLI to completion with exactly the given environment (plus PATH), never through a shell,
 * so nothing from the developer's own setup (keys, config, proxies) reaches it.
 */
export function runCli(file: string, args: string[], options: { cwd: string; env: Record<string, string>; timeoutMs?: number }): Promise<CliRun> {
  return new Promise((resolvePromise) => {
    // stdin closed: the CLIs read a piped stdin as more prompt and would wait for it forever.
    const child = spawn(file, args, {
      cwd: options.cwd,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 100_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code, stdout, stderr });
    });
  });
}

/** A fresh directory that is removed by the returned function. */
export function makeTempDirectory(prefix: string): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** The three catalog models of the simulated gateway, one per provider wire protocol, with the simulator's upstream name. */
export const wireModels = [
  { wire: 'openai', model: 'sim/openai-model', upstream: 'gpt-sim' },
  { wire: 'anthropic', model: 'sim/anthropic-model', upstream: 'claude-sim' },
  { wire: 'gemini', model: 'sim/gemini-model', upstream: 'gemini-sim' },
] as const;
