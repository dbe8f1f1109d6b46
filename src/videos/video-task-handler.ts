import type { AppContext } from '../app-context.js';
import type { ProviderConfig } from '../config/types.js';
import type { CallContext } from '../providers/provider-adapter.js';
import { UpstreamError } from '../errors/upstream-error.js';
import type { VideoProviderAdapter } from '../providers/video-adapter.js';
import { videoAdapterFor } from '../providers/video-adapters.js';
import type { TaskHandler, TaskRecord } from '../tasks/task-types.js';
import { priceVideoSeconds } from './price-video.js';
import type { CancelSignal } from '../core/cancel-signal.js';

/**
 * The `video` task kind: polls the provider's job through its protocol's video adapter and
 * prices a finished video at the per-second price the task was created with (what was quoted),
 * for the seconds the provider says it made, or else the seconds asked for. The engine caps
 * the charge at the reservation.
 */
export const videoTaskHandler: TaskHandler<AppContext> = {
  kind: 'video',
  endpoint: '/videos',
  schedule: { maxAgeMs: 2 * 60 * 60 * 1000, firstPollMs: 2_000, minPollMs: 2_000, maxPollMs: 20_000 },

  async poll(task, context, options) {
    const { adapter, call } = videoCall(task, context, options.signal);
    const state = await adapter.poll(task.providerJobId!, call);
    if (state.state === 'failed') return { state: 'failed', error: state.error };
    if (state.state !== 'completed') return { state: 'pending', progress: state.progress, retryAfterMs: state.retryAfterMs, started: state.state === 'in_progress' };
    const asked = Number(task.input.seconds);
    const seconds = state.seconds !== undefined && state.seconds > 0 ? state.seconds : asked;
    const cost = priceVideoSeconds(seconds, BigInt(String(task.input.price_per_second ?? '0')));
    return { state: 'completed', cost, result: { ...state.result, seconds } };
  },
};

/**
 * The provider call of a video task. A provider no longer in the config (or whose protocol lost
 * its video API) is reported as unreachable rather than failing the task: an operator may be
 * fixing the config, and the task fails on its own at its maximum age.
 */
export function videoCall(task: TaskRecord, context: AppContext, signal: CancelSignal): { adapter: VideoProviderAdapter; call: CallContext } {
  const provider: ProviderConfig | undefined = context.catalog.providerById.get(task.provider);
  const adapter = provider ? videoAdapterFor(provider.api) : undefined;
  if (!provider || !adapter) {
    throw new UpstreamError({ provider: task.provider, status: 0, message: `provider '${task.provider}' is not configured with a video protocol` });
  }
  const endpointModel = context.catalog.modelById.get(task.model)?.endpoints.find((endpoint) => endpoint.provider === provider.id)?.model;
  const providerModel = typeof task.input.provider_model === 'string' ? task.input.provider_model : (endpointModel ?? task.model);
  return { adapter, call: { provider, providerModel, signal, dispatcher: context.providers.dispatcher(provider) } };
}
