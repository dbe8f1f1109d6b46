import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { offlineHint } from '../../src/cli/log-provider-summary.js';
import { loadConfig } from '../../src/config/load-config.js';
import { waitForExit } from '../helpers/shutdown-fixture.js';
import { switchyardBin } from '../helpers/spawn-server.js';

/**
 * The README's Quick start, run as it is written, on a fresh copy of the repository, with no
 * provider key in the environment: terminal 1's command, then terminal 2's commands, then the
 * page the README names, then Ctrl-C. The commands are read out of README.md, so the two cannot
 * drift apart.
 *
 * The copy holds what a clone of the working tree would (the files git tracks or would track, in
 * their current content), without dist/ or data/, so that `npm run demo` builds and creates
 * everything itself. One liberty, said here: `npm install` is not run; the copy's node_modules
 * links to this checkout's install (a full install takes minutes and the network).
 */

const root = resolve(import.meta.dirname, '../..');
const children: ChildProcess[] = [];
const scratch = mkdtempSync(join(tmpdir(), 'switchyard-quick-start-'));
afterAll(() => {
  for (const child of children) {
    if (child.exitCode !== null || child.signalCode !== null || !child.pid) continue;
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // The group ended meanwhile.
    }
  }
  rmSync(scratch, { recursive: true, force: true });
});

/** The shell blocks of the README's Quick start, in order. */
function quickStartBlocks(): string[] {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const start = readme.indexOf('\n## Quick start');
  const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
  return [...section.matchAll(/^```sh\n([\s\S]*?)^```/gm)].map((match) => match[1]!);
}

/** Copies the working tree's files as a clone would have them; returns their paths. */
function copyRepository(to: string): string[] {
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' }).split('\0');
  const files = [...new Set(listed)].filter((path) => path !== '' && existsSync(join(root, path)) && statSync(join(root, path)).isFile());
  for (const path of files) {
    mkdirSync(dirname(join(to, path)), { recursive: true });
    copyFileSync(join(root, path), join(to, path));
    chmodSync(join(to, path), statSync(join(root, path)).mode);
  }
  // node_modules as npm install lays it out: this checkout's packages, and the workspace package
  // (@switchyard/simulator) linked to the copy's own packages/simulator, which the copy builds.
  const installed = realpathSync(join(root, 'node_modules'));
  mkdirSync(join(to, 'node_modules', '@switchyard'), { recursive: true });
  for (const entry of readdirSync(installed)) if (entry !== '@switchyard') symlinkSync(join(installed, entry), join(to, 'node_modules', entry));
  symlinkSync(join(to, 'packages', 'simulator'), join(to, 'node_modules', '@switchyard', 'simulator'));
  return files.sort();
}

function filesUnder(directory: string, skip: string[] = []): string[] {
  const found: string[] = [];
  const walk = (path: string) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const full = join(path, entry.name);
      if (skip.includes(relative(directory, full))) continue;
      if (entry.isDirectory()) walk(full);
      else found.push(relative(directory, full));
    }
  };
  walk(directory);
  return found.sort();
}

/** A newcomer's environment: no provider key, no Switchyard setting, nothing of this test run's. */
function newcomerEnvironment(temporary: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (/(_API_KEY|_BASE_URL|_SERVICE_ACCOUNT_JSON)$|^(AWS_|SWITCHYARD_|TELEGRAM_|OTEL_|VITEST|TEST_)|^(DATABASE_URL|REDIS_URL|PORT|HOST|LOG_LEVEL|FAL_KEY|NODE_ENV)$/.test(name)) continue;
    env[name] = value;
  }
  // A free port instead of 8080 (other suites run beside this one), and a temporary folder of
  // its own, to see that the demo leaves nothing in it.
  return { ...env, PORT: '0', TMPDIR: temporary };
}

/** The JSON values a shell script printed one after another (curl ends its output without a newline). */
function jsonValues(text: string): unknown[] {
  const values: unknown[] = [];
  let depth = 0;
  let from = -1;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const character = text[index];
    if (inString) {
      if (character === '\\') index += 1;
      else if (character === '"') inString = false;
    } else if (character === '"') inString = true;
    else if (character === '{' || character === '[') {
      if (depth === 0) from = index;
      depth += 1;
    } else if (character === '}' || character === ']') {
      depth -= 1;
      if (depth === 0) values.push(JSON.parse(text.slice(from, index + 1)));
    }
  }
  return values;
}

/** What a child prints (stdout and stderr), and a wait for a line of it. */
function collectOutput(child: ChildProcess): { text: () => string; waitFor: (marker: string) => Promise<void> } {
  let printed = '';
  child.stdout!.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  const waitFor = (marker: string) =>
    new Promise<void>((ready, fail) => {
      const timer = setInterval(() => {
        if (printed.includes(marker)) ready();
        else if (child.exitCode === null && child.signalCode === null) return;
        else fail(new Error(`exited before printing "${marker}": ${printed}`));
        clearInterval(timer);
      }, 100);
    });
  return { text: () => printed, waitFor };
}

describe("the README's Quick start, on a fresh copy with no provider key", () => {
  it('answers a generation call, serves the page, shows the CLI the same account, and leaves nothing behind on Ctrl-C', async () => {
    const [terminal1, terminal2] = quickStartBlocks();
    expect(terminal1).toBeDefined();
    expect(terminal2).toBeDefined();
    const copy = join(scratch, 'switchyard');
    const temporary = join(scratch, 'tmp');
    mkdirSync(temporary);
    const copied = copyRepository(copy);
    const env = newcomerEnvironment(temporary);
    expect(Object.keys(env).filter((name) => /API_KEY|^AWS_/.test(name))).toEqual([]);

    // Terminal 1: `npm install && npm run demo`, the install left out (see above). Its own
    // process group, as a terminal's foreground job, so that Ctrl-C reaches npm and node alike.
    const command = terminal1!.split('\n')[0]!.replace(/\s+#.*$/, '');
    expect(command.startsWith('npm install && ')).toBe(true);
    const demo = spawn('bash', ['-c', command.slice('npm install && '.length)], { cwd: copy, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(demo);
    const output = collectOutput(demo);
    await output.waitFor('Ctrl-C stops it');

    // Terminal 2, in the same folder, as written.
    const script = execFileSync('bash', ['-e', '-c', terminal2!], { cwd: copy, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    const [answer, accounts] = jsonValues(script) as [
      { object: string; model: string; choices: { message: { content: string } }[]; usage: { cost: number } },
      { data: { id: string; name: string; total_usage: number; balance: number }[] },
    ];
    // A 200 generation answer (an error would be the error envelope) …
    expect(answer.object).toBe('chat.completion');
    expect(answer.model).toBe('demo/anthropic-style');
    expect(answer.choices[0]!.message.content).toContain('Simulated reply');
    expect(answer.usage.cost).toBeGreaterThan(0);
    // … charged to the account the admin CLI sees on the same database, the one the demo printed.
    expect(accounts.data).toHaveLength(1);
    expect(accounts.data[0]!.name).toBe('demo');
    expect(output.text()).toContain(`account ${accounts.data[0]!.id} "demo"`);
    expect(accounts.data[0]!.total_usage).toBe(answer.usage.cost);
    expect(accounts.data[0]!.balance).toBeCloseTo(10 - answer.usage.cost, 9);

    // The page the demo names.
    const pageUrl = /page\s+(http:\/\/\S+\/)/.exec(output.text())![1]!;
    const page = await fetch(pageUrl);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(await page.text()).toContain('<script');

    // Ctrl-C: the demo stops, and leaves no file behind but the builds (dist/, the simulator's dist/).
    const exited = waitForExit(demo);
    process.kill(-demo.pid!, 'SIGINT');
    await exited;
    expect(output.text()).not.toMatch(/error/i);
    expect(existsSync(join(copy, 'data'))).toBe(false);
    expect(existsSync(join(copy, 'packages', 'simulator', 'dist', 'index.js'))).toBe(true);
    expect(filesUnder(copy, ['node_modules', 'dist', join('packages', 'simulator', 'dist')])).toEqual(copied);
    expect(readdirSync(temporary)).toEqual([]);
  }, 600_000);
});

describe('npm start without a provider key', () => {
  it('says in one line how to enable a provider, and how to try Switchyard offline', async () => {
    const directory = join(scratch, 'start');
    mkdirSync(directory);
    const env = { ...newcomerEnvironment(directory), DATABASE_URL: `sqlite:${join(directory, 'start.db')}`, SWITCHYARD_WARMUP_REQUESTS: '0', LOG_LEVEL: 'silent' };
    const server = spawn(process.execPath, [switchyardBin, 'serve'], { cwd: directory, env, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(server);
    const output = collectOutput(server);
    await output.waitFor('npm run demo');
    const exited = waitForExit(server);
    server.kill('SIGINT');
    expect(await exited).toBe(0);
    const lines = output.text().split('\n');
    expect(lines.some((line) => line.startsWith('listening on http://'))).toBe(true);
    expect(lines.filter((line) => line.includes('npm run demo'))).toEqual([
      'no provider has an API key, so every model answers 503: set one (OPENAI_API_KEY=… npm start), or try Switchyard offline with npm run demo',
    ]);
  }, 300_000);

  it('prints nothing of the kind once a provider has its key', () => {
    const directory = join(scratch, 'keyed');
    mkdirSync(directory);
    expect(offlineHint(loadConfig({ OPENAI_API_KEY: 'sk-test' }, directory))).toBeUndefined();
    expect(offlineHint(loadConfig({}, directory))).toContain('npm run demo');
  });
});
