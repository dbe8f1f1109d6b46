import { FaultSyntaxError } from './fault-syntax-error.js';
import { readDirectiveEntries } from './read-directive-entries.js';

/** What a video prompt can ask of the simulator, in the `[[sim:key=value,flag]]` form of text faults. */
export interface VideoDirectives {
  /** Milliseconds from submission to a finished video (replaces `videoDurationMs`). */
  video_ms?: number;
  /** The job fails when it would have finished. */
  fail?: boolean;
  /** The job fails once its progress reaches this percentage (0–100). */
  fail_at?: number;
  /** The submission itself is answered with this HTTP error status (no job is created). */
  status?: number;
  /** Seconds, sent as `retry-after` with `status`. */
  retry_after?: number;
}

const NUMERIC_KEYS = new Set(['video_ms', 'fail_at', 'status', 'retry_after']);

/**
 * Reads the video directives of a prompt. Unknown keys are an error, as for text faults, so a
 * typo fails loudly instead of testing nothing.
 */
export function parseVideoDirectives(prompt: string): VideoDirectives {
  const directives: VideoDirectives = {};
  for (const [key, value] of readDirectiveEntries(prompt)) {
    if (key === 'fail') {
      directives.fail = value !== 'false' && value !== '0';
      continue;
    }
    if (!NUMERIC_KEYS.has(key)) throw new FaultSyntaxError(`unknown video directive: ${key}`);
    const number = Number(value);
    if (value === undefined || !Number.isFinite(number) || number < 0) throw new FaultSyntaxError(`${key} must be a non-negative number`);
    (directives as Record<string, number>)[key] = number;
  }
  if (directives.status !== undefined && (!Number.isInteger(directives.status) || directives.status < 400 || directives.status > 599)) {
    throw new FaultSyntaxError('status must be an HTTP error status (400-599)');
  }
  if (directives.fail_at !== undefined && directives.fail_at > 100) throw new FaultSyntaxError('fail_at must be a percentage (0-100)');
  return directives;
}
