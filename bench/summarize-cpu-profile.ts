import { readFileSync } from 'node:fs';

/** The parts of a V8 .cpuprofile (node --cpu-prof) that are read here. */
interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }>;
  /** µs on the monotonic clock that `process.hrtime` reads (CLOCK_MONOTONIC on Linux). */
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** A span of time on the monotonic clock, in µs (`process.hrtime.bigint() / 1000n`). */
export interface TimeWindow {
  fromMicros: number;
  toMicros: number;
}

export interface HotSpot {
  name: string;
  /** Share of all sampled time outside idle, percent. */
  percent: number;
}

export interface ProfileSummary {
  file: string;
  sampledMs: number;
  /** Functions by self time. */
  self: HotSpot[];
  /** Our own (dist/ ⇒ src/) functions by inclusive time: what a request spends under each. */
  ownInclusive: HotSpot[];
  /** Self time by package / area (node internals, fastify, pino, undici, our folders, GC). */
  byArea: HotSpot[];
}

function frameName(frame: CpuProfile['nodes'][number]['callFrame'], root: string): string {
  const name = frame.functionName || '(anonymous)';
  if (!frame.url) return name;
  return `${name} ${shortenUrl(frame.url, root)}:${frame.lineNumber + 1}`;
}

function shortenUrl(url: string, root: string): string {
  let path = url.replace(/^file:\/\//, '');
  if (path.startsWith(root)) path = path.slice(root.length + 1);
  return path.replace(/^dist\/(.*)\.js$/, 'src/$1.ts (compiled)');
}

function areaOf(frame: CpuProfile['nodes'][number]['callFrame'], root: string): string {
  const url = frame.url;
  if (!url) return frame.functionName.startsWith('(') ? frame.functionName : '(native)';
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`;
  const path = url.replace(/^file:\/\//, '');
  const inModules = path.lastIndexOf('/node_modules/');
  if (inModules !== -1) {
    const parts = path.slice(inModules + 14).split('/');
    return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
  }
  const relative = path.startsWith(root) ? path.slice(root.length + 1) : path;
  const folders = relative.split('/');
  return folders[0] === 'dist' && folders.length > 2 ? `src/${folders[1]}/` : relative;
}

function top(totals: Map<string, number>, all: number, count: number): HotSpot[] {
  return [...totals.entries()]
    .sort((left, right) => right[1] - left[1])
    .slice(0, count)
    .map(([name, micros]) => ({ name, percent: Math.round((micros / all) * 1000) / 10 }));
}

/** Self time, inclusive time of our own functions, and time per area, from one profile. */
export function summarizeCpuProfile(file: string, root: string, count = 15, windows?: readonly TimeWindow[]): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const areas = new Map<string, number>();
  let all = 0;
  // A sample's time: the profile's start plus the deltas up to it.
  let at = profile.startTime;
  profile.samples.forEach((sampleId, index) => {
    const node = byId.get(sampleId);
    const micros = profile.timeDeltas[index] ?? 0;
    at += micros;
    // Only the samples inside the windows (the measured requests), when given: start-up (module
    // compilation, the tokenizer's build) and the warm-up are not what a request costs.
    if (windows !== undefined && !windows.some((window) => at >= window.fromMicros && at <= window.toMicros)) return;
    if (!node || node.callFrame.functionName === '(idle)') return;
    all += micros;
    const name = frameName(node.callFrame, root);
    self.set(name, (self.get(name) ?? 0) + micros);
    const area = areaOf(node.callFrame, root);
    areas.set(area, (areas.get(area) ?? 0) + micros);
    const seen = new Set<string>();
    for (let id: number | undefined = sampleId; id !== undefined; id = parent.get(id)) {
      const frame = byId.get(id)?.callFrame;
      if (!frame || !frame.url.includes('/dist/') || frame.url.includes('/node_modules/')) continue;
      const key = frameName(frame, root);
      if (seen.has(key)) continue;
      seen.add(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + micros);
    }
  });
  return {
    file,
    sampledMs: Math.round(all / 1000),
    self: top(self, all, count),
    ownInclusive: top(inclusive, all, count),
    byArea: top(areas, all, count),
  };
}
