/**
 * The parts of fal.ai's queue API this adapter reads; lenient, every field optional.
 * https://docs.fal.ai/documentation/model-apis/inference/queue
 */

/** POST https://queue.fal.run/{model_id} */
export interface FalSubmitResponse {
  request_id?: string;
  status_url?: string;
  response_url?: string;
  cancel_url?: string;
}

/** GET {status_url}: 202 while queued or running, 200 once completed. */
export interface FalStatusResponse {
  status?: 'IN_QUEUE' | 'IN_PROGRESS' | 'COMPLETED' | 'FAILED' | 'CANCELED' | string;
  queue_position?: number;
  response_url?: string;
  /** Set on a COMPLETED request whose run failed. */
  error?: string | null;
  error_type?: string | null;
}

/** GET {response_url}: the model's output; image models answer `images`. */
export interface FalImagesResult {
  images?: Array<{ url?: string; content_type?: string; width?: number; height?: number }>;
  /** fal's validation and runtime errors. */
  detail?: unknown;
}
