/**
 * The parts of the Gemini API's Veo long-running operations the gateway writes and reads.
 * https://ai.google.dev/gemini-api/docs/video
 */
export interface VeoPredictBody {
  instances: Array<{ prompt: string; image?: { bytesBase64Encoded: string; mimeType: string } }>;
  parameters: { durationSeconds: number; aspectRatio?: string; resolution?: string };
}

/** `GET {base}/{name}`: a google.longrunning.Operation, read leniently. */
export interface VeoOperation {
  name?: unknown;
  done?: unknown;
  metadata?: { progressPercent?: unknown } | null;
  error?: { code?: unknown; message?: unknown; status?: unknown } | null;
  response?: {
    generateVideoResponse?: {
      generatedSamples?: Array<{ video?: { uri?: unknown } | null } | null> | null;
      raiMediaFilteredCount?: unknown;
      raiMediaFilteredReasons?: unknown;
    } | null;
  } | null;
}
