// Runs the dependency rule (.dependency-cruiser.cjs) over the repository and fails on any
// violation that is not a known exception. With --report it prints what is left of the old shape
// instead: the folder-level edges that point up the layers, the cycles, and the known exceptions
// that no longer match anything (to prune after a merge). Usage:
//   npm run check:deps                 the check (CI)
//   npm run check:deps -- --report     the report (exit status as the check's)
// DEPCRUISE=<path to bin/dependency-cruise.mjs> runs another install of dependency-cruiser.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const configFile = join(root, '.dependency-cruiser.cjs');
const config = createRequire(import.meta.url)(configFile);
const { layers, knownExceptions, testFiles } = config;
const report = process.argv.includes('--report');

const result = cruise(['src', 'packages', 'bench', 'test', 'scripts'].filter((folder) => existsSync(join(root, folder))));
const matched = new Set();
const offending = result.summary.violations.filter((violation) => {
  const exception = knownExceptions.find((candidate) => excuses(candidate, violation));
  if (exception) matched.add(exception);
  return !exception;
});
const layerOf = (path) => layers.findIndex((layer) => layer.paths.some((prefix) => within(path, prefix)));
const isTest = (path) => testFiles.some((pattern) => new RegExp(pattern).test(path));
const outside = result.modules
  .map((module) => module.source)
  .filter((path) => path.startsWith('src/') && !isTest(path) && layerOf(path) < 0);

if (report) printReport();
// dependency-cruiser names an edge once per import statement; one line per edge is enough.
const lines = new Set(
  offending.map((violation) => `✖ ${violation.rule.name}: ${violation.cycle ? [violation.from, ...violation.cycle.map((step) => step.name)].join(' → ') : `${violation.from} → ${violation.to}`}`),
);
for (const line of lines) console.error(line);
for (const path of outside) console.error(`✖ ${path} is in no layer: place its folder in the layers of .dependency-cruiser.cjs and docs/architecture.md`);
const stale = knownExceptions.filter((exception) => !matched.has(exception));
if (!report && stale.length > 0) console.error(`${stale.length} known exception(s) no longer needed; npm run check:deps -- --report lists them`);
const failures = lines.size + outside.length;
console.error(failures === 0 ? `dependency rule: ${result.summary.totalCruised} modules, no violation (${matched.size} known exceptions in use)` : `dependency rule: ${failures} violation(s)`);
process.exit(failures === 0 ? 0 : 1);

function cruise(folders) {
  const binary = process.env.DEPCRUISE ?? join(root, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');
  const scratch = mkdtempSync(join(tmpdir(), 'check-deps-'));
  try {
    const output = join(scratch, 'result.json');
    const run = spawnSync(process.execPath, [binary, '--config', configFile, '--output-type', 'json', '--output-to', output, ...folders], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
    if (run.error) throw run.error;
    // dependency-cruiser exits with the number of errors it found; only a missing result is a failure to run.
    if (!existsSync(output)) throw new Error(`dependency-cruiser did not run (exit ${run.status})`);
    return JSON.parse(readFileSync(output, 'utf8'));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** A path is within a folder (ending in /) or is the file. */
function within(path, entry) {
  return entry.endsWith('/') ? path.startsWith(entry) : path === entry;
}

function excuses(exception, violation) {
  if (violation.cycle) {
    if (!exception.cycle) return false;
    return [violation.from, ...violation.cycle.map((step) => step.name)].every((path) => exception.cycle.some((entry) => within(path, entry)));
  }
  return !exception.cycle && within(violation.from, exception.from) && within(violation.to, exception.to);
}

function printReport() {
  const unitOf = (path) => {
    const index = layerOf(path);
    return index < 0 ? undefined : { index, name: layers[index].paths.find((prefix) => within(path, prefix)).replace(/\/$/, '') };
  };
  const edges = new Map();
  for (const module of result.modules) {
    const from = unitOf(module.source);
    if (!from || isTest(module.source)) continue;
    for (const dependency of module.dependencies) {
      const to = unitOf(dependency.resolved);
      if (!to || to.name === from.name) continue;
      const key = `${from.name} → ${to.name}`;
      const edge = edges.get(key) ?? { from, to, files: new Set() };
      edge.files.add(module.source);
      edges.set(key, edge);
    }
  }
  const upward = [...edges.entries()].filter(([, edge]) => edge.to.index < edge.from.index).sort(([a], [b]) => a.localeCompare(b));
  console.log(`Layers, top to bottom: ${layers.map((layer) => layer.paths.map((path) => path.replace(/^src\//, '')).join(' ')).join(' → ')}\n`);
  console.log(`Folder edges that point up the layers (${upward.length}; files that import up):`);
  for (const [key, edge] of upward) console.log(`  ${key}  ${edge.files.size}: ${[...edge.files].map((path) => path.replace(/^src\//, '')).join(', ')}`);
  // Each upward edge closes a loop with the downward ones; the pairs that import each other directly are the short loops.
  const mutual = upward.filter(([, edge]) => edges.has(`${edge.to.name} → ${edge.from.name}`));
  console.log(`\nFolder pairs that import each other (${mutual.length}):`);
  for (const [, edge] of mutual) console.log(`  ${edge.from.name} ⇄ ${edge.to.name}`);
  const tangles = stronglyConnected([...edges.values()].map((edge) => [edge.from.name, edge.to.name])).filter((component) => component.length > 1);
  console.log(`Folders tied into cycles through upward edges: ${tangles.map((component) => component.length).join(' + ') || 0}`);
  const fileEdges = result.modules
    .filter((module) => !module.source.startsWith('web/'))
    .flatMap((module) => module.dependencies.filter((dependency) => !dependency.coreModule && !dependency.couldNotResolve && !dependency.resolved.includes('node_modules')).map((dependency) => [module.source, dependency.resolved]));
  const fileCycles = stronglyConnected(fileEdges).filter((component) => component.length > 1);
  console.log(`\nFile cycles outside web/ (${fileCycles.length}, as strongly connected sets of files):`);
  for (const component of fileCycles) console.log(`  ${component.join(', ')}`);
  const stale = knownExceptions.filter((exception) => !matched.has(exception));
  console.log(`\nKnown exceptions in use: ${matched.size}; no longer needed (remove from .dependency-cruiser.cjs): ${stale.length}`);
  for (const exception of stale) console.log(`  item ${exception.item ?? '-'}: ${exception.cycle ? `cycle ${exception.cycle.join(', ')}` : `${exception.from} → ${exception.to}`}`);
  console.log('');
}

/** Tarjan's strongly connected components of a directed graph given as edges. */
function stronglyConnected(edgeList) {
  const next = new Map();
  for (const [from, to] of edgeList) {
    if (!next.has(from)) next.set(from, new Set());
    if (!next.has(to)) next.set(to, new Set());
    next.get(from).add(to);
  }
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const components = [];
  let counter = 0;
  const visit = (node) => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const target of next.get(node)) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node), low.get(target)));
      } else if (onStack.has(target)) low.set(node, Math.min(low.get(node), index.get(target)));
    }
    if (low.get(node) === index.get(node)) {
      const component = [];
      let member;
      do {
        member = stack.pop();
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      components.push(component.sort());
    }
  };
  for (const node of [...next.keys()].sort()) if (!index.has(node)) visit(node);
  return components;
}
