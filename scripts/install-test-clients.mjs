// Installs the clients that only the tests and benchmarks drive (SDKs, the AI SDK, LangChain, the
// OpenAI Agents SDK, Portkey's gateway) into test/node_modules from test/package-lock.json, so that a
// user's `npm install` of the gateway does not pull them. Runs before `npm test` and
// `npm run typecheck`; it does nothing when the install already matches the lock file.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const directory = join(root, 'test');
const lock = join(directory, 'package-lock.json');
// npm writes the tree it installed to node_modules/.package-lock.json; when its packages equal the
// lock file's, the install is current.
const installed = join(directory, 'node_modules', '.package-lock.json');

function packagesOf(file) {
  const { packages } = JSON.parse(readFileSync(file, 'utf8'));
  return Object.entries(packages)
    .filter(([path]) => path !== '')
    .map(([path, entry]) => `${path}@${entry.version}`)
    .sort()
    .join('\n');
}

if (existsSync(installed) && packagesOf(installed) === packagesOf(lock)) process.exit(0);
process.stdout.write('Installing the test clients (test/package.json) into test/node_modules…\n');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
execFileSync(npm, ['ci', '--prefix', directory, '--no-audit', '--no-fund'], { stdio: 'inherit' });
