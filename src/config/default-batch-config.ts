/** The defaults of files and batches (`BatchConfig`), shared by the environment reader and `batches/batch-settings.ts`. */
export const defaultBatchConfig = {
  /** OpenAI's batch input limit. */
  maxFileBytes: 200 * 1024 * 1024,
  linesInFlight: 4,
  /** Engine lines of all batches on one provider at once (`batches/provider-pacing.ts`). */
  linesPerProvider: 8,
} as const;
