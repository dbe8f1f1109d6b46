import type { VideoJobRequest } from '../providers/video-adapter.js';

/** A checked `POST /videos` body: the catalog model plus the job as the providers get it. */
export interface VideoRequest extends VideoJobRequest {
  model: string;
}

/** The fields of `POST /videos` (and `/videos/quote`), as the client sends them. */
export interface VideoRequestBody {
  model: string;
  prompt: string;
  seconds?: number | string;
  size?: string;
  resolution?: string;
  aspect_ratio?: string;
  image_url?: string;
}
