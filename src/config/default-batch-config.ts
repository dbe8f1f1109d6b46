/** The defaults of files and batches (`BatchConfig`), shared by the environment reader and `batches/batch-settings.ts`. */
export const defaultBatchConfig = {
  /** OpenAI's batch input limit. */
  maxFileBytes: 200 * 1024 * 1024,
  linesInFlight: 4,
} as const;
