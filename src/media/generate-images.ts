import type { AppContext } from '../app-context.js';
import type { Principal } from '../auth/principal.js';
import { PaidCall, type SettlementRecorder } from '../billing/paid-call.js';
import { priceImages } from '../billing/price-media.js';
import type { ImageInput, ImageJobHandle, ImageRequest, ImageResponseFormat } from '../core/image-request.js';
import type { RouteRequest } from '../core/provider-preferences.js';
import { GatewayError } from '../errors/gateway-error.js';
import { admitRequest } from '../limits/admit-request.js';
import { imageAdapterOf } from '../providers/media-adapters.js';
import type { Candidate } from '../catalog/candidate.js';
import { emptyUsage } from '../core/usage.js';
import type { TaskRecord } from '../tasks/task-types.js';
import { downloadGeneratedImage } from './download-generated-image.js';
import { imageTaskKind, type ImageTaskInput } from './image-task-input.js';
import { loadImageInput } from './load-image-input.js';
import { storeMediaFiles } from './media-files.js';
import { mediaSettingsOf } from './media-settings.js';
import { planImages } from './plan-images.js';
import { callContextOf, tryCandidates } from '../routing/try-candidates.js';
import { waitForImageJob } from './wait-for-image-job.js';
import type { CancelSignal } from '../core/cancel-signal.js';

export interface ImageGenerationInput {
  principal: Principal;
  requestId: string;
  route: RouteRequest;
  request: ImageRequest;
  imageUrls: Array<{ url: string; field: string }>;
  responseFormat: ImageResponseFormat;
  signal: CancelSignal;
  /** Writes the request log row of the charge, committed together with it (a queued job's row is the task engine's). */
  record?: SettlementRecorder;
}

export type ImageOutcome =
  | { kind: 'completed'; candidate: Candidate; images: ImageInput[]; cost: bigint; /** Stored files, for `response_format: "url"`. */ fileIds?: string[] }
  | { kind: 'queued'; candidate: Candidate; task: TaskRecord };

/**
 * Route → admit → load the edit inputs → per endpoint: reserve n × the image price, run the job,
 * settle for the images made. A queued provider job (fal) that is not done within
 * `media.sync_window_ms` becomes a durable task of kind `image`: its reservation (made durable
 * from the start for such endpoints) goes with it, and the engine settles it once.
 */
export async function generateImages(context: AppContext, input: ImageGenerationInput): Promise<ImageOutcome> {
  const { principal } = input;
  const candidates = await planImages(context, principal, input.route, input.request);
  await admitRequest(context, principal, candidates[0].model);
  const settings = mediaSettingsOf(context);
  const images = await Promise.all(
    input.imageUrls.map((source) => loadImageInput(source.url, source.field, { maxBytes: settings.fetchMaxBytes, timeoutMs: settings.fetchTimeoutMs, signal: input.signal })),
  );
  const request: ImageRequest = { ...input.request, images };
  const { value } = await tryCandidates(context, candidates, input.signal, (candidate) => attempt(context, candidate, request, input));
  return value;
}

async function attempt(context: AppContext, candidate: Candidate, request: ImageRequest, input: ImageGenerationInput): Promise<ImageOutcome> {
  const adapter = imageAdapterOf(candidate.provider.api)!;
  const queued = adapter.poll !== undefined;
  const amount = priceImages(candidate.endpoint.pricing, request.n);
  const paid = await PaidCall.reserve(
    context.ledger,
    {
      accountId: input.principal.accountId,
      keyId: input.principal.keyId,
      requestId: input.requestId,
      amount,
      // A queued job may outlive this request and this instance: its reservation must too.
      durable: queued,
      lifetimeMs: queued ? context.tasks.reservationLifetimeMs(imageTaskKind) : undefined,
    },
    { candidate, record: input.record },
  );
  try {
    const call = callContextOf(context, candidate, input.signal);
    const settings = mediaSettingsOf(context);
    const started = await adapter.start(request, call);
    const state = await waitForImageJob(started, adapter, call, { windowMs: settings.syncWindowMs, pollIntervalMs: settings.pollIntervalMs });
    if (state.state === 'pending') {
      const task = await handOff(context, candidate, request, input, state.job, paid);
      return { kind: 'queued', candidate, task };
    }
    if (state.state === 'failed') throw new GatewayError('upstream_error', `The provider failed to make the image: ${state.error}`);
    const made = (await Promise.all(state.images.map((image) => downloadGeneratedImage(context, image, call)))).slice(0, request.n);
    // Stored before settling: a failure to store charges nothing.
    const fileIds = input.responseFormat === 'url' ? await storeMediaFiles(context, { accountId: input.principal.accountId, requestId: input.requestId }, made) : undefined;
    const price = priceImages(candidate.endpoint.pricing, made.length);
    // An image row carries no token counts; the price is n images at the endpoint's.
    const cost = await paid.settle({ ...emptyUsage }, 'completed', { cost: price });
    return { kind: 'completed', candidate, images: made, cost, fileIds };
  } catch (error) {
    // Nothing after a hand-off: the task took the reservation.
    await paid.abort(error);
    throw error;
  }
}

async function handOff(
  context: AppContext,
  candidate: Candidate,
  request: ImageRequest,
  input: ImageGenerationInput,
  job: ImageJobHandle,
  paid: PaidCall,
): Promise<TaskRecord> {
  const taskInput: ImageTaskInput = {
    operation: request.operation,
    providerModel: candidate.endpoint.model,
    job,
    n: request.n,
    responseFormat: input.responseFormat,
    imagePrice: (candidate.endpoint.pricing.image ?? 0n).toString(),
    requestPrice: (candidate.endpoint.pricing.request ?? 0n).toString(),
  };
  const outcome = await context.tasks.create({
    accountId: input.principal.accountId,
    keyId: input.principal.keyId,
    kind: imageTaskKind,
    model: candidate.model.id,
    provider: candidate.provider.id,
    input: taskInput as unknown as Record<string, unknown>,
    reservation: paid.reservation,
    idempotencyKey: null,
    requestId: input.requestId,
    providerJobId: job.id,
  });
  // Created or found (a replay): either way the task, not this request, ends the reservation now.
  paid.handOff();
  return outcome.created ? outcome.task : outcome.existing;
}
