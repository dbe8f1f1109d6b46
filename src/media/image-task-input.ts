import type { ImageJobHandle, ImageOperation, ImageResponseFormat } from '../core/image-request.js';

export const imageTaskKind = 'image';

/** What an `image` task keeps to follow its provider job and price it: JSON in the task row. */
export interface ImageTaskInput {
  operation: ImageOperation;
  providerModel: string;
  job: ImageJobHandle;
  n: number;
  responseFormat: ImageResponseFormat;
  /** The endpoint's prices when the task was created, nano-USD as decimal strings. */
  imagePrice: string;
  requestPrice: string;
}

/** What a finished `image` task's result holds: the stored files, in order. */
export interface ImageTaskResult {
  created: number;
  files: string[];
  responseFormat: ImageResponseFormat;
}

export function readImageTaskInput(input: Record<string, unknown>): ImageTaskInput | undefined {
  const job = input.job as Partial<ImageJobHandle> | undefined;
  if (typeof input.providerModel !== 'string' || typeof job?.id !== 'string' || typeof job.statusUrl !== 'string' || typeof job.responseUrl !== 'string') return undefined;
  return input as unknown as ImageTaskInput;
}
