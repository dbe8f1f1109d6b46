/**
 * Bounds on what one client connection may hold, documented in docs/operations.md ("Timeouts and
 * bounds"). Each can be changed with the environment variable named beside it.
 */
export interface HttpLimits {
  /** Time to receive the request line and all headers (SWITCHYARD_HEADERS_TIMEOUT_MS). */
  headersTimeoutMs: number;
  /** Time to receive the whole request, body included (SWITCHYARD_REQUEST_TIMEOUT_MS). */
  requestTimeoutMs: number;
  /** How long an idle keep-alive connection stays open between requests (SWITCHYARD_KEEP_ALIVE_TIMEOUT_MS). */
  keepAliveTimeoutMs: number;
  /** How often Node checks the two timeouts above; the precision of their enforcement. */
  timeoutCheckIntervalMs: number;
  /** Bodies above this size count as large uploads (SWITCHYARD_LARGE_UPLOAD_BYTES). */
  largeUploadBytes: number;
  /** Large uploads received at the same time; more are answered 503 at once (SWITCHYARD_MAX_LARGE_UPLOADS). */
  maxLargeUploads: number;
  /** Streams one key may hold open at once; more are answered 429 (SWITCHYARD_MAX_STREAMS_PER_KEY). */
  maxStreamsPerKey: number;
  /** Responses WebSocket connections one key may hold open at once (SWITCHYARD_MAX_SOCKETS_PER_KEY). */
  maxSocketsPerKey: number;
  /** A Responses WebSocket with no message and no response under way this long is closed (SWITCHYARD_SOCKET_IDLE_TIMEOUT_MS). */
  socketIdleTimeoutMs: number;
}

export const defaultHttpLimits: HttpLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 60_000,
  keepAliveTimeoutMs: 5_000,
  timeoutCheckIntervalMs: 1_000,
  largeUploadBytes: 1024 * 1024,
  maxLargeUploads: 8,
  maxStreamsPerKey: 200,
  maxSocketsPerKey: 20,
  socketIdleTimeoutMs: 300_000,
};
