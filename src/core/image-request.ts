/** Image generation and editing, as every inbound request and provider protocol sees it. */
export type ImageOperation = 'generate' | 'edit';

export const imageOperations: readonly ImageOperation[] = ['generate', 'edit'];

export type ImageResponseFormat = 'b64_json' | 'url';

/** An input image, already loaded (data URL decoded or fetched) and sniffed. */
export interface ImageInput {
  bytes: Buffer;
  contentType: string;
}

export interface ImageRequest {
  operation: ImageOperation;
  prompt: string;
  n: number;
  /** `WIDTHxHEIGHT` from the model's `sizes`. */
  size?: string;
  quality?: string;
  /** From the model's `aspect_ratios`, e.g. `16:9`. */
  aspectRatio?: string;
  /** From the model's `resolutions`, e.g. `2K`. */
  resolution?: string;
  /** Edit inputs, in order. Empty for `generate`. */
  images: ImageInput[];
}

/** An image a provider produced: its bytes, or a URL to download them from. */
export type GeneratedImage = { bytes: Buffer; contentType: string } | { url: string };

/** A provider job that runs asynchronously (fal's queue), as far as the gateway needs to follow it. */
export interface ImageJobHandle {
  id: string;
  statusUrl: string;
  responseUrl: string;
}

export type ImageJobState =
  | { state: 'completed'; images: GeneratedImage[] }
  | { state: 'pending'; job: ImageJobHandle; progress?: number }
  | { state: 'failed'; error: string };
