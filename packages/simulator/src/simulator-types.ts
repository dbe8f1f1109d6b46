import type { FalStats } from './fal-jobs.js';
import type { VideoStats } from './video-jobs.js';

/** The wire protocols the simulator speaks. */
export type SimulatorProtocol = 'openai' | 'anthropic' | 'gemini' | 'bedrock' | 'cohere' | 'voyage' | 'jina';

export const SIMULATOR_PROTOCOLS: readonly SimulatorProtocol[] = ['openai', 'anthropic', 'gemini', 'bedrock', 'cohere', 'voyage', 'jina'];

export interface SimulatorOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Delay before the response headers (or the first stream event). Default 0. */
  latencyMs?: number;
  /** Stream pacing; 0 (the default) writes every event as fast as possible. */
  tokensPerSecond?: number;
  /** Reply tokens per streamed text chunk. Default 1. */
  chunkTokens?: number;
  /** Length of a generated text reply, in simulator tokens (words). Default 16. */
  replyTokens?: number;
  /** When set, every protocol request must carry this key in the protocol's auth header. */
  apiKey?: string;
  /**
   * How long an idle keep-alive connection stays open, in ms (Node's default 5000). A client
   * that stalls for seconds (a gateway under valgrind) reuses a connection the simulator is
   * closing at that moment and fails with `other side closed`; a longer time avoids the race.
   */
  keepAliveMs?: number;
  /** The public key (PEM) of the service account whose signed assertions `POST /google/token` accepts (Vertex AI). */
  googleServiceAccountPublicKey?: string;
  /** Lifetime of the access tokens it issues, in seconds (default 3600). */
  googleTokenLifetimeSeconds?: number;
  /** Time from a video submission to the finished video (progress in between). Default 1000 ms. */
  videoDurationMs?: number;
  /** Delay before answering a video status poll, so overlapping polls of one job show. Default 0. */
  videoPollLatencyMs?: number;
  /** Time from a batch's creation (OpenAI Batch, Anthropic Message Batches, Gemini batch mode) to its end, when its lines are answered. Default 1000 ms. */
  batchDurationMs?: number;
  /**
   * OpenAI Batch's completion window (the API takes only `24h`), shortened for tests: a batch
   * still running this long after its creation ends `expired` at the next read, its unanswered
   * lines `batch_expired` in the error file. Default 24 hours.
   */
  batchCompletionWindowMs?: number;
  /** Time from a fal queue submission to its COMPLETED status; `[[sim:job_ms=N]]` in a prompt overrides it. Default 0. */
  imageJobDurationMs?: number;
}

/**
 * A fault to inject. The keys are snake_case because the same object travels as a prompt
 * directive (`[[sim:status=429,retry_after=1]]`) and as JSON over `POST /_sim/faults`.
 */
export interface FaultSpec {
  /** Answer with this HTTP status and the protocol's error body instead of a reply. */
  status?: number;
  /** Seconds, sent as the `retry-after` header with `status`. */
  retry_after?: number;
  /** Milliseconds before the response headers; replaces the simulator's `latencyMs`. */
  latency?: number;
  /** Destroy the socket after N stream events (non-streaming: 0 = before headers, else mid-body). */
  disconnect_after?: number;
  /** Send a truncated JSON event after N stream events, then end the response. */
  malformed_after?: number;
  /** Stop writing after N stream events and keep the connection open. */
  stall_after?: number;
  /** Send the protocol's in-stream error event after N stream events, then end the response. */
  error_after?: number;
  /** Leave usage out of the response. */
  no_usage?: boolean;
  /** Override the reply length for this request (not a fault, but handy in tests). */
  reply_tokens?: number;
  /** Report this many prompt tokens more than counted, as a provider whose tokenizer counts more than an estimate. */
  extra_prompt_tokens?: number;
}

export interface FaultMatch {
  protocol?: SimulatorProtocol;
  model?: string;
}

export interface FaultRule {
  match?: FaultMatch;
  fault: FaultSpec;
  /** How many matching requests the rule applies to; unlimited when absent. */
  times?: number;
}

export interface ProtocolStats {
  requests: number;
  models: Record<string, number>;
}

export interface SimulatorStats {
  /** Protocol requests received (control requests under /_sim are not counted). */
  requests: number;
  protocols: Record<SimulatorProtocol, ProtocolStats>;
  /** Requests whose client went away before the response finished. */
  aborted: number;
  /** Requests currently in flight. */
  open: number;
  /** The most requests in flight at once since the start or the last reset. */
  maxOpen: number;
  /** Requests that had a fault applied (rule or directive). */
  faultsInjected: number;
  /** Video jobs (OpenAI Videos API and Veo operations); present in `stats()` of a running simulator. */
  videos?: VideoStats;
  /** fal queue jobs (submissions, status polls, result fetches, file downloads); present in `stats()` of a running simulator. */
  fal?: FalStats;
  /** Files and batches held by the batch APIs (simulate-batches.ts); present in `stats()` of a running simulator. */
  batches?: { files: number; batches: number };
  /** Access tokens the Google token endpoint (`POST /google/token`) issued; present in `stats()` of a running simulator. */
  googleTokensIssued?: number;
}

/** A protocol request as it reached the simulator (recorded when its body is JSON). */
export interface ReceivedRequest {
  protocol: SimulatorProtocol;
  method: string;
  /** Path and query. */
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The body byte for byte, as UTF-8 text. */
  rawBody: string;
  body: unknown;
}

/**
 * A recorded provider answer, sent back byte for byte in place of a simulated one: the next
 * request of `protocol` that passes the route's checks (auth, URL, body) takes it. Replaying real
 * answers through a cloud's routes exercises the cloud's URL shape and authentication.
 */
export interface SimulatedRecording {
  protocol: SimulatorProtocol;
  /** Default 200. */
  status?: number;
  contentType: string;
  /** Text, or the bytes of a binary answer (Bedrock's event stream). */
  body: string | Uint8Array;
  headers?: Record<string, string>;
}

export interface Simulator {
  /** http://HOST:PORT, without a trailing slash. */
  url: string;
  port: number;
  /** The base URL to give each vendor SDK: `${url}/openai/v1`, `${url}/anthropic`, `${url}/gemini/v1beta`, `${url}/bedrock` for Bedrock (`/model/{id}/converse`, `/invoke`), and `${url}/cohere` for Cohere (`/v2/rerank`, `/v2/embed`). */
  baseUrls: Record<SimulatorProtocol, string>;
  close(): Promise<void>;
  stats(): SimulatorStats;
  /** Clears the statistics, the fault rules and the last requests. */
  reset(): void;
  /**
   * The last request a protocol received, as it arrived: path, headers and raw body (and the
   * body parsed). Tests use it to see exactly what the gateway sent a provider.
   */
  lastRequest(protocol: SimulatorProtocol): ReceivedRequest | undefined;
  /** Adds a fault rule; returns its id. Rules are tried in the order they were added. */
  setFault(rule: FaultRule): string;
  clearFaults(): void;
  /** The last protocol requests received, oldest first (at most `RECEIVED_LIMIT`); cleared by `reset`. */
  received(): ReceivedRequest[];
  /** Queues recorded answers, each for the next request of its protocol; cleared by `reset`. */
  play(...recordings: SimulatedRecording[]): void;
}
