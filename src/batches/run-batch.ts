import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { AppContext } from '../app-context.js';
import type { Principal } from '../auth/principal.js';
import { findRequest } from '../billing/db/requests.js';
import { apiEndpointsOf } from '../catalog/catalog.js';
import type { GatewayError } from '../errors/gateway-error.js';
import { toGatewayError } from '../errors/to-gateway-error.js';
import { findActiveKey } from '../store/repositories/api-keys.js';
import { batchSettingsOf } from './batch-settings.js';
import { closePendingLines, endLine, insertBatchLines, nextPendingLines, readLinesAfter, returnLine, runningLines, startLine, type BatchLineRecord, type NewBatchLine } from './db/batch-lines.js';
import { countLineEnd, failBatchValidation, findBatchById, moveBatch, startBatch, type BatchError, type BatchRecord } from './db/batches.js';
import { findFile } from './db/files.js';
import type { LineCodec, LineHandlers, LineOutcome, LineRunner } from './line-executor.js';
import { countLinesByStatus } from './db/message-batches.js';
import { chooseLineExecutor, pollProviderLines, submitProviderLines } from './run-provider-batch.js';
import { discardBytes, fileStorageOf, storeGeneratedFile } from './manage-files.js';
import { pacedProviderOf, providerPacerOf } from './provider-pacing.js';
import { lineError, readBatchLine, readFileLines } from './read-batch-line.js';

/** Lines handled between two yields to the event loop, and rows per statement: a 1,000-line batch never holds SQLite's thread for long. */
const chunk = 100;
/** The most validation errors a batch keeps (OpenAI lists the first ones too). */
const maxErrors = 100;
/** How long one poll of a batch runs lines before it hands the batch back to the engine (well within the task's lease). */
const pollBudgetMs = 10_000;

/**
 * What a poll of the batch's task found: still running, waiting (its only unfinished lines are
 * in provider batches, which take minutes to hours: the next poll can wait), or ended (in any
 * final status).
 */
export type BatchStep = 'running' | 'waiting' | 'ended';

/**
 * One step of a batch, run by its task (batch-task-handler.ts), under the task's lease, so one
 * instance at a time: validate the input file into lines; run pending lines, a bounded number in
 * flight, each through the live paid path; on cancel or past the completion window close what has
 * not started (never charged); then write the output and error files. Every step is written to
 * the database as it happens, so a restart resumes where the batch stood.
 */
export async function stepBatch(context: AppContext, batchId: string, handlers: LineHandlers, signal: AbortSignal): Promise<BatchStep> {
  let batch = await findBatchById(context.store.db, batchId);
  if (!batch) return 'ended';
  if (batch.status === 'validating') {
    // Validated even when already past its window: the lines that never ran are then in the error file.
    if (!(await validateBatch(context, batch, handlers.codec))) return 'ended';
    batch = (await findBatchById(context.store.db, batchId))!;
  }
  if (batch.status === 'in_progress' && isPastWindow(context, batch)) {
    return (await closeBatch(context, batch, handlers.codec, 'expired', signal)) ? 'ended' : 'waiting';
  }
  if (batch.status === 'in_progress') {
    batch = await runLines(context, batch, handlers, signal);
    if (batch.status === 'in_progress') return (await engineLinesLeft(context, batch)) ? 'running' : 'waiting';
  }
  if (batch.status === 'cancelling') {
    return (await closeBatch(context, batch, handlers.codec, 'cancelled', signal)) ? 'ended' : 'waiting';
  }
  if (batch.status === 'finalizing') await finalizeBatch(context, batch, 'completed');
  return 'ended';
}

/**
 * Reads the input file line by line: each line well-formed, its `url` the batch's endpoint, its
 * `custom_id` unique, its model in the catalog and serving the endpoint, no `stream`; a line bound
 * for its provider's batch API also decoded as its live endpoint decodes it and encoded for the
 * provider (`chooseLineExecutor`). Errors name the line; any error fails the batch and nothing
 * runs. Otherwise the lines are stored, pending, with their executors, in chunks (on conflict
 * nothing: a validation interrupted by a restart starts over).
 */
async function validateBatch(context: AppContext, batch: BatchRecord, codec: LineCodec): Promise<boolean> {
  const file = await findFile(context.store.db, batch.accountId, batch.inputFileId);
  const at = context.clock.now().toISOString();
  if (!file) {
    await failBatchValidation(context.store.db, batch.id, [{ code: 'invalid_file', message: `The input file ${batch.inputFileId} was deleted`, param: 'input_file_id', line: null }], 0, at);
    return false;
  }
  const errors: BatchError[] = [];
  const seen = new Set<string>();
  const providerLines = new Set<number>();
  const principal = await principalOf(context, batch);
  let total = 0;
  for await (const { lineNo, text } of readFileLines(await fileStorageOf(context).open(file.storageKey))) {
    total++;
    let problem = checkLine(context, batch, text, lineNo, seen);
    if (!problem && errors.length === 0) {
      const line = readBatchLine(text, lineNo);
      try {
        if ((await chooseLineExecutor(context, batch, { model: line.body.model as string, body: line.body }, principal, codec)) === 'provider') providerLines.add(lineNo);
      } catch (error) {
        const refusal = toGatewayError(error);
        problem = { code: refusal.code, message: `Line ${lineNo}: ${refusal.message}`, param: refusal.param === undefined ? null : `body.${refusal.param}`, line: lineNo };
      }
    }
    if (problem && errors.length < maxErrors) errors.push(problem);
    if (total % chunk === 0) await yieldToLoop();
  }
  if (errors.length > 0) {
    await failBatchValidation(context.store.db, batch.id, errors, total, context.clock.now().toISOString());
    return false;
  }
  let lines: NewBatchLine[] = [];
  for await (const { lineNo, text } of readFileLines(await fileStorageOf(context).open(file.storageKey))) {
    const line = readBatchLine(text, lineNo);
    const model = line.body.model as string;
    lines.push({ lineNo, customId: line.custom_id, model, body: JSON.stringify(line.body), executor: providerLines.has(lineNo) ? 'provider' : 'engine' });
    if (lines.length === chunk) {
      await insertBatchLines(context.store.db, batch.id, lines);
      lines = [];
    }
  }
  await insertBatchLines(context.store.db, batch.id, lines);
  await startBatch(context.store.db, batch.id, total, context.clock.now().toISOString());
  return true;
}

/** Text endpoints of a batch and the catalog endpoint each is (`apiEndpointsOf`). */
const catalogEndpointOf: Record<string, string> = { '/v1/chat/completions': 'chat', '/v1/responses': 'responses', '/v1/messages': 'messages', '/v1/embeddings': 'embeddings' };

function checkLine(context: AppContext, batch: BatchRecord, text: string, lineNo: number, seen: Set<string>): BatchError | undefined {
  const refuse = (code: string, error: GatewayError): BatchError => ({ code, message: error.message, param: error.param ?? null, line: lineNo });
  let line;
  try {
    line = readBatchLine(text, lineNo);
  } catch (error) {
    return refuse('invalid_request', error as GatewayError);
  }
  if (line.url !== batch.endpoint) return refuse('invalid_url', lineError(lineNo, `\`url\` is ${JSON.stringify(line.url)}, but this batch's endpoint is ${batch.endpoint}`, 'url'));
  if (seen.has(line.custom_id)) return refuse('duplicate_custom_id', lineError(lineNo, `\`custom_id\` ${JSON.stringify(line.custom_id)} is used by an earlier line; each line needs its own`, 'custom_id'));
  seen.add(line.custom_id);
  if (line.body.stream === true) return refuse('invalid_request', lineError(lineNo, '`body.stream` cannot be true in a batch: each answer is a line of the output file', 'body.stream'));
  const model = line.body.model;
  if (typeof model !== 'string' || model === '') return refuse('missing_required_parameter', lineError(lineNo, '`body.model` must name a model', 'body.model'));
  const config = context.catalog.modelById.get(model);
  if (!config) return refuse('model_not_found', lineError(lineNo, `The model ${JSON.stringify(model)} is not in the catalog`, 'body.model'));
  if (!(apiEndpointsOf(config) as string[]).includes(catalogEndpointOf[batch.endpoint])) {
    return refuse('model_not_found', lineError(lineNo, `The model ${JSON.stringify(model)} does not serve ${batch.endpoint}`, 'body.model'));
  }
  return undefined;
}

/**
 * Runs pending lines, at most `linesInFlight` at once, until none is left, the batch is cancelled,
 * the poll's time is up or the engine stops. Each line also takes a slot of its provider across
 * the instance's batches (`provider-pacing.ts`): a line whose provider is full or paused after a
 * rate limit waits, pending, while lines for other providers go on; when only such lines are
 * left, the poll waits for a slot or the pause's end (checking once a second) until its time is up. Lines left `running` by a process that died are put
 * back first: under the same request id when its request log row is absent or completed (the
 * books never charge one request id twice, so a line answered and charged before the crash is
 * not charged again), under a new one when that row records a failure.
 */
async function runLines(context: AppContext, batch: BatchRecord, handlers: LineHandlers, signal: AbortSignal): Promise<BatchRecord> {
  const settings = batchSettingsOf(context.config);
  const principal = await principalOf(context, batch);
  for (;;) {
    // Lines waiting in a provider's batch are not orphans: `runProviderLines` polls them.
    const orphans = await runningLines(context.store.db, batch.id, chunk, true);
    if (orphans.length === 0) break;
    for (const line of orphans) {
      const row = line.requestId === null ? undefined : await findRequest(context.store.db, batch.accountId, line.requestId);
      await returnLine(context.store.db, batch.id, line.lineNo, row === undefined || row.status === 'completed' ? line.requestId : null);
    }
  }
  if (principal) await runProviderLines(context, batch, principal, handlers.codec, signal);
  const started = Date.now();
  const inFlight = new Set<Promise<void>>();
  const pacer = providerPacerOf(context, settings.linesPerProvider);
  // Models whose provider is full or paused (provider-pacing.ts): their lines wait, the others go on.
  const waiting = new Map<string, string>();
  let queue: BatchLineRecord[] = [];
  let cancelled = false;
  let exhausted = false;
  const stop = () => signal.aborted || cancelled || Date.now() - started >= pollBudgetMs || isPastWindow(context, batch);
  while (!stop()) {
    while (inFlight.size < settings.linesInFlight && !exhausted && !stop()) {
      if (queue.length === 0) {
        queue = await nextPendingLines(context.store.db, batch.id, settings.linesInFlight * 2, principal ? 'engine' : undefined, new Set(waiting.keys()));
        // Lines already in flight are still `running`, so they are not read again.
        if (queue.length === 0) exhausted = true;
        continue;
      }
      const line = queue.shift()!;
      if (waiting.has(line.model)) continue;
      const provider = pacedProviderOf(context.catalog, line.model);
      if (!pacer.tryAcquire(provider)) {
        waiting.set(line.model, provider);
        continue;
      }
      const requestId = line.requestId ?? context.createId('req');
      if (!(await startLine(context.store.db, batch.id, line.lineNo, requestId))) {
        pacer.release(provider, false);
        continue;
      }
      const run = runOneLine(context, batch, { ...line, requestId }, principal, handlers.run, signal, provider).finally(() => inFlight.delete(run));
      inFlight.add(run);
    }
    if (inFlight.size === 0 && waiting.size === 0) break;
    if (inFlight.size > 0) await Promise.race(inFlight);
    // Only lines whose provider is full (other batches' lines) or paused are left: wait for a slot or the pause's end, a second at most.
    else await pacer.changed(Math.min(1_000, pollBudgetMs - (Date.now() - started), ...[...waiting.values()].map((provider) => pacer.pauseLeftMs(provider) || 1_000)));
    cancelled = (await findBatchById(context.store.db, batch.id))?.status === 'cancelling';
    // A slot may be free again: the waiting lines are read again.
    if (waiting.size > 0) {
      waiting.clear();
      queue = [];
      exhausted = false;
    }
  }
  await Promise.all(inFlight);
  const current = (await findBatchById(context.store.db, batch.id))!;
  if (current.status !== 'in_progress') return current;
  const left = (await nextPendingLines(context.store.db, batch.id, 1)).length + (await runningLines(context.store.db, batch.id, 1)).length;
  if (left > 0) return current;
  await moveBatch(context.store.db, batch.id, ['in_progress'], { status: 'finalizing', at: context.clock.now().toISOString() });
  return (await findBatchById(context.store.db, batch.id))!;
}

async function runOneLine(
  context: AppContext,
  batch: BatchRecord,
  line: BatchLineRecord & { requestId: string },
  principal: Principal | undefined,
  runLine: LineRunner,
  signal: AbortSignal,
  provider: string,
): Promise<void> {
  const pacer = providerPacerOf(context, batchSettingsOf(context.config).linesPerProvider);
  let outcome: LineOutcome | undefined;
  try {
    outcome = await runLineOnce(context, batch, line, principal, runLine, signal);
  } finally {
    pacer.release(provider, outcome !== undefined && outcome.kind !== 'stopped' && !(outcome.kind === 'failed' && outcome.rateLimited));
  }
  if (outcome.kind === 'failed' && outcome.rateLimited) {
    // The provider is rate limiting: the line waits (pending, uncharged, its row says why) and runs again after the pause.
    pacer.pause(provider, outcome.rateLimited.retryAfterSeconds);
    await returnLine(context.store.db, batch.id, line.lineNo, null);
    return;
  }
  await endLineWith(context, batch, line, outcome);
}

async function runLineOnce(context: AppContext, batch: BatchRecord, line: BatchLineRecord & { requestId: string }, principal: Principal | undefined, runLine: LineRunner, signal: AbortSignal): Promise<LineOutcome> {
  let outcome: LineOutcome;
  if (!principal) {
    outcome = { kind: 'failed', statusCode: 401, body: null, code: 'invalid_api_key', message: 'The API key that created this batch was revoked; its lines cannot run' };
  } else {
    try {
      outcome = await runLine(context, { batch, line, requestId: line.requestId, principal, signal });
    } catch (error) {
      context.logger.error({ err: error, batch: batch.id, line: line.lineNo }, 'batch line failed unexpectedly');
      outcome = { kind: 'failed', statusCode: 500, body: null, code: 'internal_error', message: 'The line could not be run' };
    }
  }
  return outcome;
}

async function endLineWith(context: AppContext, batch: BatchRecord, line: BatchLineRecord & { requestId: string }, outcome: LineOutcome): Promise<void> {
  if (outcome.kind === 'stopped') {
    // Its request log row (if any) records the interruption; the next run logs under a new id.
    await returnLine(context.store.db, batch.id, line.lineNo, null);
    return;
  }
  const ended = await endLine(context.store.db, batch.id, line.lineNo, {
    status: outcome.kind === 'answered' ? 'completed' : 'failed',
    statusCode: outcome.statusCode,
    response: outcome.body,
    error: outcome.kind === 'failed' && outcome.body === null ? { code: outcome.code, message: outcome.message } : null,
  });
  if (ended) await countLineEnd(context.store.db, batch.id, outcome.kind === 'answered' ? 'completed' : 'failed');
}

/**
 * The lines of provider batches: polls the ones sent (settling those whose provider batch
 * ended), then sends the pending ones, in chunks. A provider that fails to answer is asked again
 * by the next step; its lines stay where they were.
 */
async function runProviderLines(context: AppContext, batch: BatchRecord, principal: Principal, codec: LineCodec, signal: AbortSignal): Promise<void> {
  try {
    await pollProviderLines(context, batch, principal, codec, signal);
    for (;;) {
      const lines = await nextPendingLines(context.store.db, batch.id, chunk, 'provider');
      if (lines.length === 0 || signal.aborted) break;
      const sent = await submitProviderLines(context, batch, principal, lines, codec, signal);
      if (sent === 0) break;
    }
  } catch (error) {
    if (!signal.aborted) context.logger.warn({ err: error, batch: batch.id }, 'polling a provider batch failed; the next step asks again');
  }
}

/** Whether the engine has lines of this batch left to run (the others wait in provider batches). */
async function engineLinesLeft(context: AppContext, batch: BatchRecord): Promise<boolean> {
  return (await nextPendingLines(context.store.db, batch.id, 1, 'engine')).length + (await runningLines(context.store.db, batch.id, 1, true)).length > 0;
}

function isPastWindow(context: AppContext, batch: BatchRecord): boolean {
  return context.clock.now().getTime() >= Date.parse(batch.expiresAt);
}

/** The batch creator's key as a principal; undefined once it is revoked (its lines then fail, uncharged). */
async function principalOf(context: AppContext, batch: BatchRecord): Promise<Principal | undefined> {
  const key = await findActiveKey(context.store.db, batch.accountId, batch.keyId);
  return key && { keyId: key.id, accountId: key.accountId, management: key.management, maxPrice: key.maxPrice, modelMaxPrices: key.modelMaxPrices, requestsPerMinute: key.requestsPerMinute };
}

/**
 * Cancel or expiry: the lines that have not started end `cancelled` or `expired` (never run,
 * never charged; expired ones go to the error file as `batch_expired`), in chunks; the provider
 * batches still running are asked to cancel, and each of their lines is settled from its result
 * once the provider batch ends (what the provider ran before the cancel it bills, so the line is
 * charged; what it canceled is not). Then the files are written and the batch ends in that
 * status. Answers false while a provider batch has not ended yet (the next step asks again).
 * Engine lines in flight are waited for by the run that holds them, which is this poll's own
 * (the task is leased to one instance).
 */
async function closeBatch(context: AppContext, batch: BatchRecord, codec: LineCodec, status: 'cancelled' | 'expired', signal: AbortSignal): Promise<boolean> {
  for (;;) {
    const count = await closePendingLines(context.store.db, batch.id, status, chunk);
    if (count === 0) break;
    await yieldToLoop();
  }
  // Engine lines a dead process left running had their chance: they end with the batch too.
  for (;;) {
    const orphans = await runningLines(context.store.db, batch.id, chunk, true);
    if (orphans.length === 0) break;
    for (const line of orphans) {
      const error = { code: status === 'expired' ? 'batch_expired' : 'batch_cancelled', message: 'The batch ended while this line was running' };
      if (await endLine(context.store.db, batch.id, line.lineNo, { status: 'failed', statusCode: 0, response: null, error })) await countLineEnd(context.store.db, batch.id, 'failed');
    }
  }
  try {
    if (!(await pollProviderLines(context, batch, (await principalOf(context, batch)) ?? ownerOf(batch), codec, signal, status))) return false;
  } catch (error) {
    if (!signal.aborted) context.logger.warn({ err: error, batch: batch.id }, 'cancelling a provider batch failed; the next step asks again');
    return false;
  }
  // Expired lines count as failed (OpenAI's request_counts); counted here, once, when the batch ends.
  const failedLines = status === 'expired' ? ((await countLinesByStatus(context.store.db, batch.id)).expired ?? 0) : 0;
  await finalizeBatch(context, (await findBatchById(context.store.db, batch.id))!, status, failedLines);
  return true;
}

/**
 * The batch creator as a principal, for reading back its provider lines' answers after its key
 * was revoked (the provider ran them: they are settled all the same).
 */
function ownerOf(batch: BatchRecord): Principal {
  return { keyId: batch.keyId, accountId: batch.accountId, management: false, maxPrice: null, modelMaxPrices: {}, requestsPerMinute: null };
}

/**
 * Writes the output file (answered lines) and the error file (failed and expired lines), in
 * OpenAI's line format `{id, custom_id, response: {status_code, request_id, body} | null, error}`
 * and input order, reading the lines in chunks; then the batch ends in `status`. A file with no
 * line is not made (OpenAI leaves its id null too).
 */
async function finalizeBatch(context: AppContext, batch: BatchRecord, status: 'completed' | 'cancelled' | 'expired', failedLines = 0): Promise<void> {
  const outputId = context.createId('file');
  const errorId = context.createId('file');
  const output = await storeGeneratedFile(context, { id: outputId, accountId: batch.accountId, filename: `batch_${batch.id}_output.jsonl`, lines: linesOf(context, batch, 'output') });
  const errors = await storeGeneratedFile(context, { id: errorId, accountId: batch.accountId, filename: `batch_${batch.id}_error.jsonl`, lines: linesOf(context, batch, 'error') });
  const moved = await moveBatch(context.store.db, batch.id, [batch.status], {
    status,
    at: context.clock.now().toISOString(),
    outputFileId: output.lineCount > 0 ? output.id : null,
    errorFileId: errors.lineCount > 0 ? errors.id : null,
    failedLines,
  });
  // Files nobody names (empty, or another run finished first) are removed again.
  for (const file of [output, errors]) {
    if (!moved || file.lineCount === 0) {
      await context.store.db.deleteFrom('files').where('id', '=', file.id).execute();
      await discardBytes(context, file.storageKey);
    }
  }
}

async function* linesOf(context: AppContext, batch: BatchRecord, file: 'output' | 'error'): AsyncGenerator<string> {
  let after = 0;
  for (;;) {
    const lines = await readLinesAfter(context.store.db, batch.id, after, chunk);
    if (lines.length === 0) return;
    after = lines[lines.length - 1].lineNo;
    for (const line of lines) {
      const answered = line.status === 'completed';
      const errored = line.status === 'failed' || line.status === 'expired';
      if (file === 'output' ? !answered : !errored) continue;
      yield JSON.stringify(outputLineOf(line));
    }
    await yieldToLoop();
  }
}

/** One line of an output or error file, as OpenAI writes it (https://platform.openai.com/docs/guides/batch#5-retrieve-the-results). */
function outputLineOf(line: BatchLineRecord): Record<string, unknown> {
  const ran = line.response !== null && line.statusCode !== null && line.statusCode > 0;
  const error = line.status === 'expired' ? { code: 'batch_expired', message: 'This line was not run before the batch expired' } : line.error;
  return {
    id: `batch_req_${line.requestId ?? `${line.batchId}_${line.lineNo}`}`,
    custom_id: line.customId,
    response: ran ? { status_code: line.statusCode, request_id: line.requestId, body: line.response } : null,
    error: ran ? null : error,
  };
}
