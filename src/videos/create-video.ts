import { createHash } from 'node:crypto';
import type { AppContext } from '../app-context.js';
import type { Principal } from '../auth/principal.js';
import { PaidCall } from '../billing/paid-call.js';
import { invalidRequest } from '../errors/gateway-error.js';
import { admitRequest } from '../limits/admit-request.js';
import { callContextOf, tryCandidates } from '../routing/try-candidates.js';
import { UpstreamError } from '../errors/upstream-error.js';
import type { TaskRecord } from '../tasks/task-types.js';
import { planVideo, type VideoPlan, type VideoRoute } from './plan-video.js';
import type { VideoRequest, VideoRequestBody } from './video-request.js';

export interface CreateVideoInput {
  principal: Principal;
  body: VideoRequestBody;
  requestId: string;
  idempotencyKey: string | null;
}

/** `replayed`: the idempotency key named an earlier task, which is answered again unchanged. */
export interface CreateVideoOutcome {
  task: TaskRecord;
  replayed: boolean;
}

/**
 * `POST /videos`: route and check → reserve the quote (durable: it outlives this process) →
 * insert the task, leased to this instance → submit the job to the provider within this request
 * → record the provider's job id. Submitting here, not in the worker, means a crash after the
 * client got its answer can never submit (and pay for) the job a second time; a crash before the
 * provider's answer leaves a task without a job id, which a worker fails and releases.
 * With an idempotency key, the account's earlier task under that key is answered instead.
 */
export async function createVideo(context: AppContext, input: CreateVideoInput): Promise<CreateVideoOutcome> {
  const { principal } = input;
  const plan = await planVideo(context, principal, input.body);
  const fingerprint = fingerprintOf(plan.request);
  if (input.idempotencyKey !== null) {
    const existing = await context.tasks.findByIdempotencyKey(principal.accountId, input.idempotencyKey);
    if (existing) return { task: checkReplay(existing, fingerprint), replayed: true };
  }
  await admitRequest(context, principal, plan.model);

  const route = plan.routes[0];
  const paid = await reserve(context, principal, input.requestId, route);
  const created = await context.tasks
    .create({
      accountId: principal.accountId,
      keyId: principal.keyId,
      kind: 'video',
      model: plan.model.id,
      provider: route.candidate.provider.id,
      input: taskInput(plan.request, route, fingerprint),
      reservation: paid.reservation,
      idempotencyKey: input.idempotencyKey,
      requestId: input.requestId,
      submitWithinMs: submissionBudgetMs(plan.routes),
    })
    .catch(async (error: unknown) => {
      await paid.abort(error);
      throw error;
    });
  if (!created.created) {
    // Another request with the same key won the insert a moment ago.
    await paid.abort(undefined);
    return { task: checkReplay(await awaitSubmission(context, created.existing), fingerprint), replayed: true };
  }
  return { task: await submitWithFailover(context, input, plan, created.task, paid, fingerprint), replayed: false };
}

/**
 * Submits the task's job to the plan's endpoints in the shared candidate loop, moving on only
 * after a failure that may pass; each endpoint gets its own reservation at its own price. Any
 * final failure discards the task and releases its reservation before the error goes out.
 */
async function submitWithFailover(
  context: AppContext,
  input: CreateVideoInput,
  plan: VideoPlan,
  task: TaskRecord,
  first: PaidCall,
  fingerprint: string,
): Promise<TaskRecord> {
  let paid: PaidCall | null = first;
  // Bounded by the submission lease, not by the client: see `routes.ts`.
  const signal = AbortSignal.timeout(submissionBudgetMs(plan.routes) - 10_000);
  const routeOf = new Map(plan.routes.map((route) => [route.candidate, route]));
  try {
    const { value } = await tryCandidates(context, plan.routes.map((route) => route.candidate), signal, async (candidate, control) => {
      const route = routeOf.get(candidate)!;
      if (control.index > 0) {
        await paid!.abort(undefined);
        paid = null;
        paid = await reserve(context, input.principal, input.requestId, route);
        await context.tasks.reroute(task, { model: plan.model.id, provider: candidate.provider.id, input: taskInput(plan.request, route, fingerprint), reservation: paid.reservation });
      }
      return route.adapter.submit(plan.request, callContextOf(context, candidate, signal));
    });
    const submitted = await context.tasks.markSubmitted(task, { providerJobId: value.jobId, status: value.status, progress: value.progress });
    // The task engine settles the reservation once the video is done (`tasks/finish-task.ts`).
    paid?.handOff();
    return submitted;
  } catch (error) {
    await context.tasks.discardUnsubmitted(task);
    if (paid) await paid.abort(error);
    throw error;
  }
}

/** What `/videos/quote` answers: exactly what `createVideo` would reserve for this body. */
export async function quoteVideo(context: AppContext, principal: Principal | null, body: VideoRequestBody): Promise<bigint> {
  const plan = await planVideo(context, principal, body);
  return plan.routes[0].amount;
}

/** A durable reservation at this route's price, for the task that the call is handed off to once submitted. */
function reserve(context: AppContext, principal: Principal, requestId: string, route: VideoRoute): Promise<PaidCall> {
  return PaidCall.reserve(
    context.ledger,
    { accountId: principal.accountId, keyId: principal.keyId, requestId, amount: route.amount, durable: true, lifetimeMs: context.tasks.reservationLifetimeMs('video') },
    { candidate: route.candidate },
  );
}

/**
 * What the task keeps of the request: enough to poll and to price the finished video at the
 * price it was quoted, and a fingerprint to recognise a replay. Not the image (it can be a
 * multi-megabyte data URL and is no longer needed once the provider has the job).
 */
function taskInput(request: VideoRequest, route: VideoRoute, fingerprint: string): Record<string, unknown> {
  return {
    prompt: request.prompt,
    seconds: request.seconds,
    size: request.size ?? null,
    resolution: request.resolution ?? null,
    aspect_ratio: request.aspectRatio ?? null,
    image_input: request.imageUrl !== undefined,
    provider_model: route.candidate.endpoint.model,
    price_per_second: route.pricePerSecond.toString(),
    fingerprint,
  };
}

function fingerprintOf(request: VideoRequest): string {
  const canonical = [request.model, request.prompt, request.seconds, request.size ?? '', request.resolution ?? '', request.aspectRatio ?? '', request.imageUrl ?? ''];
  return createHash('sha256').update(JSON.stringify(canonical)).digest('hex');
}

/** The same key with a different request is a client bug: say so rather than answer the wrong video. */
function checkReplay(task: TaskRecord, fingerprint: string): TaskRecord {
  if (task.kind !== 'video' || task.input.fingerprint !== fingerprint) {
    throw invalidRequest('This Idempotency-Key was already used with a different request', 'Idempotency-Key');
  }
  return task;
}

/**
 * A concurrent request with the same key is still submitting: wait (bounded) until it has the
 * provider's job id, or gave up. A task that is gone failed to submit; its key is free again,
 * and the caller's client may retry.
 */
async function awaitSubmission(context: AppContext, task: TaskRecord): Promise<TaskRecord> {
  const deadline = Date.now() + 30_000;
  let current: TaskRecord | undefined = task;
  while (current && current.providerJobId === null && current.status !== 'failed' && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    current = await context.tasks.find(task.accountId, task.id);
  }
  if (!current) throw new UpstreamError({ provider: task.provider, status: 502, message: 'The concurrent request with this Idempotency-Key could not submit the video; retry' });
  return current;
}

/** How long the creating request may take to submit: every endpoint's connect and answer budget, plus slack. */
function submissionBudgetMs(routes: VideoRoute[]): number {
  return routes.reduce((total, route) => total + route.candidate.provider.timeouts.connectMs + route.candidate.provider.timeouts.firstByteMs, 30_000);
}
