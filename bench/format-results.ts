import { ALL_MODES, type BenchmarkResult, type Mode, type PhaseResult } from './run-benchmark.js';

const modeNames: Record<Mode, string> = { json: 'non-streaming', stream: 'streaming', embeddings: 'embeddings, 64 inputs a request' };

const HEADER = ['target', 'mode', 'req/s', 'p50 ms', 'p99 ms', 'added p50 / p99 ms', 'added p50 / p99 ms @c=1', 'over floor p50 / p99 ms @c=1', 'proxy CPU µs/req', 'CPU µs/chunk', 'chunks/req', 'RSS MB (peak)', 'errors'];

function number(value: number | null | undefined, digits = 2): string {
  return value === null || value === undefined ? '–' : value.toFixed(digits);
}

function pair(latency: { p50: number; p99: number } | null, digits = 2): string {
  return latency ? `${number(latency.p50, digits)} / ${number(latency.p99, digits)}` : '–';
}

function row(phase: PhaseResult): string[] {
  return [
    phase.target,
    phase.mode === 'json' ? 'non-stream' : phase.mode,
    number(phase.throughput, 0),
    number(phase.latencyMs.p50),
    number(phase.latencyMs.p99),
    pair(phase.addedLatencyMs),
    pair(phase.probe?.addedLatencyMs ?? null, 3),
    pair(phase.probe?.overFloorMs ?? null, 3),
    phase.proxy ? String(phase.proxy.cpuMicrosPerRequest) : '–',
    number(phase.proxy?.cpuMicrosPerChunk ?? null, 1),
    number(phase.chunksPerRequest, 0),
    phase.proxy ? `${phase.proxy.rssMb.toFixed(0)} (${phase.proxy.peakRssMb.toFixed(0)})` : '–',
    String(phase.errors),
  ];
}

function ratioText(value: number | null, of: string): string {
  return value === null ? `n/a vs ${of}` : `${value.toFixed(2)}× ${of}`;
}

/** The results as a Markdown table plus the ratios and any target that could not be measured. */
export function formatResults(result: BenchmarkResult): string {
  const rows = [HEADER, ...result.phases.map(row)];
  const widths = HEADER.map((_, column) => Math.max(...rows.map((cells) => cells[column].length)));
  const line = (cells: string[]) => `| ${cells.map((cell, column) => cell.padEnd(widths[column])).join(' | ')} |`;
  const lines = [line(rows[0]), `|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`, ...rows.slice(1).map(line)];
  const settings = result.settings;
  lines.push(
    '',
    `concurrency ${settings.concurrency}; ${settings.requests} non-streaming, ${settings.streamRequests} streaming and ${settings.embeddingRequests ?? 2000} embeddings requests per target ` +
      `after ${settings.warmupRequests} warm-up; ${settings.probeRequests} requests at concurrency 1 for "@c=1" ("over floor": minus the minimal proxy's)${result.rounds ? ', medians of the rounds' : ''}; ` +
      `simulator latency ${settings.simulator.latencyMs} ms, ${settings.simulator.tokensPerSecond} tokens/s (0 = unpaced), ${settings.simulator.replyTokens}-word replies`,
    `${result.machine.cpus} × ${result.machine.cpuModel}, Node ${result.machine.node}, load average ${result.machine.loadAverageAtStart} at start; run took ${result.durationSeconds} s; ` +
      `Switchyard at ${result.source.commit?.slice(0, 7) ?? 'unknown commit'}${result.source.changedSourceFiles ? ` + ${result.source.changedSourceFiles} changed files in src/` : ''}`,
  );
  if (result.rounds) {
    lines.push(`${result.rounds.length} rounds: each row is the target's median round (by CPU per request), each ratio below the median of the rounds' ratios`);
    for (const mode of ALL_MODES) {
      if (!result.phases.some((phase) => phase.mode === mode)) continue;
      const perRound = result.rounds.map((one) => one.cpuRatios[mode]?.switchyardVsMinimal?.toFixed(2) ?? 'n/a').join(', ');
      const scaleOut = result.rounds.map((one) => one.scaleOutThroughputVsSqlite[mode]?.['switchyard-pg']);
      const scaleOutText = scaleOut.some((ratio) => ratio !== undefined) ? `; switchyard-pg throughput vs SQLite ${scaleOut.map((ratio) => ratio?.toFixed(2) ?? 'n/a').join(', ')}` : '';
      lines.push(`  ${modeNames[mode]} per round: Switchyard vs minimal proxy ${perRound}${scaleOutText}`);
    }
  }
  for (const mode of ALL_MODES) {
    const ratios = result.cpuRatios[mode];
    if (!ratios || !result.phases.some((phase) => phase.mode === mode)) continue;
    lines.push(
      `Switchyard proxy CPU per request (${modeNames[mode]}): ` +
        `${ratioText(ratios.switchyardVsMinimal, 'minimal proxy')}, ${ratioText(ratios.switchyardVsPortkey, 'Portkey')}`,
    );
    if (ratios.tracedVsUntraced != null) {
      lines.push(`Tracing on (OTLP to a local sink) over off, CPU per request (${modeNames[mode]}): ${ratios.tracedVsUntraced.toFixed(2)}×`);
    }
    if (ratios.cacheHitVsMinimal != null) {
      lines.push(`Response-cache hit CPU per request over the minimal proxy (${mode === 'json' ? 'non-streaming' : 'streaming'}): ${ratios.cacheHitVsMinimal.toFixed(2)}×`);
    }
    if (ratios.chatPassThroughVsTranslated != null || ratios.messagesPassThroughVsTranslated != null) {
      lines.push(
        `Native pass-through CPU per request over translation (${modeNames[mode]}): ` +
          `Chat → openai ${ratios.chatPassThroughVsTranslated?.toFixed(2) ?? 'n/a'}×, Messages → anthropic ${ratios.messagesPassThroughVsTranslated?.toFixed(2) ?? 'n/a'}×`,
      );
    }
  }
  for (const mode of ALL_MODES) {
    const overFloor = result.phases.filter((phase) => phase.mode === mode && phase.probe?.overFloorMs);
    if (overFloor.length > 0) {
      lines.push(
        `Added latency at concurrency 1 over the floor, p50 / p99 (${modeNames[mode]}): ` +
          overFloor.map((phase) => `${phase.target} ${pair(phase.probe!.overFloorMs, 3)} ms`).join(', '),
      );
    }
  }
  for (const mode of ALL_MODES) {
    const ratios = Object.entries(result.scaleOutThroughputVsSqlite?.[mode] ?? {});
    if (ratios.length > 0) lines.push(`Throughput vs Switchyard on SQLite (${modeNames[mode]}): ${ratios.map(([name, ratio]) => `${name} ${ratio.toFixed(2)}×`).join(', ')}`);
  }
  if (result.traces) lines.push(`switchyard-traced exported ${result.traces.exports} OTLP requests (${result.traces.bytes} bytes) to the bench's sink`);
  for (const [name, books] of Object.entries(result.books ?? {})) {
    lines.push(
      `${name} books after the run: ${books.exact ? 'exact' : 'NOT EXACT'}: charges ${books.charges} = request costs ${books.requestCosts} = rollups ${books.rollupCosts} = usage ${books.totalUsage} nano-USD over ${books.accounts} account(s); ` +
        `uncollected ${books.uncollected}; open reservations after shutdown ${books.openReservations}; negative balances ${books.negativeBalances}` +
        (books.liveLeases === undefined ? '' : `; while running ${books.liveLeases} lease row(s) (held by design), rows = reserved: ${books.liveReservedAgrees}`),
    );
  }
  for (const [name, status] of Object.entries(result.targets)) {
    if (status.status === 'unavailable') lines.push(`${name}: not measured: ${status.reason}`);
  }
  const failed = result.phases.filter((phase) => phase.errors > 0);
  for (const phase of failed) lines.push(`${phase.target} ${phase.mode}: ${phase.errors} errors, first: ${phase.firstError}`);
  if (result.profile) {
    lines.push('', `Switchyard CPU profile (${result.profile.sampledMs} ms sampled, ${result.profile.file}):`);
    lines.push('  by area (self time):');
    for (const spot of result.profile.byArea) lines.push(`    ${spot.percent.toFixed(1).padStart(5)} %  ${spot.name}`);
    lines.push('  hottest functions (self time):');
    for (const spot of result.profile.self) lines.push(`    ${spot.percent.toFixed(1).padStart(5)} %  ${spot.name}`);
    lines.push('  our functions (inclusive time):');
    for (const spot of result.profile.ownInclusive) lines.push(`    ${spot.percent.toFixed(1).padStart(5)} %  ${spot.name}`);
  }
  return lines.join('\n');
}
