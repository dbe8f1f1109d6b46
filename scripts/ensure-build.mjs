// Compiles src/ to dist/ when dist/ is missing or any source file is newer than the last build.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, utimesSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const stamp = join(root, 'dist', '.tsbuildinfo');

function newestSourceTime(directory) {
  let newest = 0;
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSourceTime(path));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

export function ensureBuild() {
  const source = join(root, 'src');
  if (!existsSync(source)) return;
  const entry = join(root, 'dist', 'cli', 'main.js');
  if (existsSync(entry) && existsSync(stamp) && statSync(stamp).mtimeMs >= newestSourceTime(source)) return;
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  if (!existsSync(tsc)) {
    if (existsSync(entry)) return;
    throw new Error('dist/ is missing and TypeScript is not installed: run npm install');
  }
  process.stderr.write('switchyard: building…\n');
  execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
  // An incremental build that emitted nothing leaves the stamp old; mark this check as done.
  if (existsSync(stamp)) utimesSync(stamp, new Date(), new Date());
}

if (process.argv[1] === fileURLToPath(import.meta.url)) ensureBuild();
