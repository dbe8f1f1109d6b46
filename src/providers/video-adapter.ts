import type { ProviderConfig } from '../config/types.js';
import type { CallContext } from './provider-adapter.js';
import type { UpstreamResponse } from './shared/send-request.js';

/** A video job as the gateway asks for it; values were checked against the model's catalog entry. */
export interface VideoJobRequest {
  prompt: string;
  seconds: number;
  /** `WIDTHxHEIGHT` (OpenAI's form). */
  size?: string;
  /** `720p`, `1080p` … (Veo's form). */
  resolution?: string;
  /** `16:9`, `9:16` … */
  aspectRatio?: string;
  /** An http(s) URL or a data: URL of the first frame or reference image. */
  imageUrl?: string;
}

export type VideoJobStatus = 'queued' | 'in_progress';

/** Where a job stands at its provider. */
export type VideoJobState =
  | { state: VideoJobStatus; progress?: number; retryAfterMs?: number }
  /** `result` is what `openContent` needs later (a file URI …), stored with the task. `seconds`: what the provider says it made. */
  | { state: 'completed'; seconds?: number; result: Record<string, unknown> }
  | { state: 'failed'; error: string };

/**
 * One video wire protocol. Every method rejects with `UpstreamError` when the provider cannot be
 * reached or answers an error status, and with `GatewayError` (invalid_request) when the request
 * cannot be expressed in the protocol, before anything is sent.
 */
export interface VideoProviderAdapter {
  readonly api: ProviderConfig['api'];
  /** Starts the job; answers the provider's job id. Called once per task, never retried by the engine. */
  submit(request: VideoJobRequest, context: CallContext): Promise<{ jobId: string; status: VideoJobStatus; progress: number }>;
  poll(jobId: string, context: CallContext): Promise<VideoJobState>;
  /** Opens the finished video's bytes (the body streams; the caller must consume or dump it). */
  openContent(jobId: string, result: Record<string, unknown>, context: CallContext): Promise<UpstreamResponse>;
}
