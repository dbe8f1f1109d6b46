/**
 * The parts of OpenAI's Videos API the gateway writes and reads.
 * https://platform.openai.com/docs/api-reference/videos
 */
export interface OpenAiCreateVideoBody {
  model: string;
  prompt: string;
  /** A string on the wire: "4", "8", "12". */
  seconds: string;
  size?: string;
  /** The JSON form of the reference image; the multipart form uploads a file instead. */
  input_reference?: { image_url: string };
}

/** The video job object, read leniently: only these fields matter here. */
export interface OpenAiVideoJob {
  id?: unknown;
  object?: unknown;
  status?: unknown;
  progress?: unknown;
  seconds?: unknown;
  size?: unknown;
  error?: { code?: unknown; message?: unknown } | null;
}
