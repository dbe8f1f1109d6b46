import type { AppContext } from '../app-context.js';
import { priceImages } from '../billing/price-media.js';
import { imageAdapterOf } from '../providers/media-adapters.js';
import type { CallContext } from '../providers/provider-adapter.js';
import type { PollOutcome, TaskHandler, TaskRecord } from '../tasks/task-types.js';
import { downloadGeneratedImage } from './download-generated-image.js';
import { imageTaskKind, readImageTaskInput, type ImageTaskResult } from './image-task-input.js';
import { storeMediaFiles } from './media-files.js';

/**
 * Follows an image job that outlived its request's synchronous window (fal's queue). On
 * completion the images are stored (file ids derived from the task id, so a repeated poll stores
 * nothing twice) and the cost is the images made at the prices recorded at creation; the engine
 * settles it. A download failure throws, and the engine polls again later.
 */
export const imageTaskHandler: TaskHandler<AppContext> = {
  kind: imageTaskKind,
  endpoint: '/images/generations',
  schedule: { maxAgeMs: 60 * 60 * 1000, firstPollMs: 1_000, minPollMs: 1_000, maxPollMs: 15_000 },
  async poll(task: TaskRecord, context: AppContext, options: { signal: AbortSignal }): Promise<PollOutcome> {
    const input = readImageTaskInput(task.input);
    const provider = context.catalog.providerById.get(task.provider);
    const adapter = provider && imageAdapterOf(provider.api);
    if (!input || !provider || !adapter?.poll) return { state: 'failed', error: 'The image job can no longer be followed: its provider is not configured' };
    const call: CallContext = { provider, providerModel: input.providerModel, signal: options.signal, dispatcher: context.providers.dispatcher(provider) };
    const state = await adapter.poll(input.job, call);
    if (state.state === 'pending') return { state: 'pending', progress: state.progress, started: (state.progress ?? 0) > 0 };
    if (state.state === 'failed') return { state: 'failed', error: state.error };
    const images = (await Promise.all(state.images.map((image) => downloadGeneratedImage(context, image, call)))).slice(0, input.n);
    const ids = images.map((_, index) => `${task.id}-${index}`);
    await storeMediaFiles(context, { accountId: task.accountId, requestId: task.requestId ?? task.id }, images, ids);
    const cost = priceImages({ prompt: 0n, completion: 0n, image: BigInt(input.imagePrice), request: BigInt(input.requestPrice) }, images.length);
    const result: ImageTaskResult = { created: Math.floor(context.clock.now().getTime() / 1000), files: ids, responseFormat: input.responseFormat };
    return { state: 'completed', cost, result: result as unknown as Record<string, unknown> };
  },
};
