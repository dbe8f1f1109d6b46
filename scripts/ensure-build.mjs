// Compiles the simulator package (packages/simulator → its dist/) and src/ to dist/ when a build is
// missing or any of its source files is newer than the last build, and builds the account page
// (web/ → dist/web) likewise.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, utimesSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const stamp = join(root, 'dist', '.tsbuildinfo');

function newestSourceTime(directory, extensions = ['.ts']) {
  let newest = 0;
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSourceTime(path, extensions));
    else if (extensions.some((extension) => entry.name.endsWith(extension))) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * Builds the account page with Vite when dist/web is missing or older than web/. Without Vite (a
 * production install) an existing build is kept; with neither, the API still runs and `/`
 * explains that the page is not built.
 */
export function ensureWebBuild() {
  const source = join(root, 'web');
  if (!existsSync(source)) return;
  const page = join(root, 'dist', 'web', 'index.html');
  if (existsSync(page) && statSync(page).mtimeMs >= newestSourceTime(source, ['.ts', '.tsx', '.css', '.html'])) return;
  const vite = join(root, 'node_modules', 'vite', 'bin', 'vite.js');
  if (!existsSync(vite)) {
    if (!existsSync(page)) process.stderr.write('switchyard: the account page is not built and Vite is not installed (npm install, then npm run build)\n');
    return;
  }
  process.stderr.write('switchyard: building the account page…\n');
  execFileSync(process.execPath, [vite, 'build', source], { stdio: ['ignore', 'ignore', 'inherit'], cwd: root });
}

/**
 * Compiles one TypeScript project when its entry is missing or its sources are newer than its
 * stamp. Without TypeScript (a production install) an existing build is kept.
 */
function ensureCompiled({ source, entry, stamp, project, what }) {
  if (existsSync(entry) && existsSync(stamp) && statSync(stamp).mtimeMs >= newestSourceTime(source)) return;
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  if (!existsSync(tsc)) {
    if (existsSync(entry)) return;
    throw new Error(`${what} is not built and TypeScript is not installed: run npm install`);
  }
  process.stderr.write(`switchyard: building ${what}…\n`);
  execFileSync(process.execPath, [tsc, '-p', project], { stdio: 'inherit' });
  // An incremental build that emitted nothing leaves the stamp old; mark this check as done.
  if (existsSync(stamp)) utimesSync(stamp, new Date(), new Date());
}

export function ensureBuild() {
  const source = join(root, 'src');
  if (!existsSync(source)) return;
  ensureWebBuild();
  // The simulator package first: serve's warm-up and demo import it, and the gateway's build
  // type-checks against its declarations (dist/index.d.ts).
  const simulator = join(root, 'packages', 'simulator');
  if (existsSync(join(simulator, 'src'))) {
    ensureCompiled({
      source: join(simulator, 'src'),
      entry: join(simulator, 'dist', 'index.js'),
      stamp: join(simulator, 'dist', '.tsbuildinfo'),
      project: join(simulator, 'tsconfig.json'),
      what: 'the simulator package (packages/simulator)',
    });
  }
  ensureCompiled({ source, entry: join(root, 'dist', 'cli', 'main.js'), stamp, project: join(root, 'tsconfig.build.json'), what: 'the gateway (dist/)' });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  // `--web` builds only the page (the browser tests run the TypeScript sources directly).
  if (process.argv.includes('--web')) ensureWebBuild();
  else ensureBuild();
}
