import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { Transform, type TransformCallback } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { invalidRequest, type GatewayError } from '../errors/gateway-error.js';

/** One request of a batch input file, OpenAI's line format (https://platform.openai.com/docs/guides/batch). */
export interface BatchInputLine {
  custom_id: string;
  method: 'POST';
  url: string;
  body: Record<string, unknown>;
}

/** Longest `custom_id` (OpenAI's SDK types say nothing; 512 keeps a row bounded). */
const maxCustomIdChars = 512;

/**
 * Reads one line of a batch input file, or refuses it naming the line (1-based) and the field:
 * a JSON object with `custom_id` (a non-empty string), `method: "POST"`, `url` (a string) and
 * `body` (an object). Which URL and model are allowed is the batch's check (create-batch.ts).
 */
export function readBatchLine(text: string, lineNo: number): BatchInputLine {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw lineError(lineNo, 'is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw lineError(lineNo, 'must be a JSON object');
  const line = value as Record<string, unknown>;
  if (typeof line.custom_id !== 'string' || line.custom_id === '') throw lineError(lineNo, '`custom_id` must be a non-empty string', 'custom_id');
  if (line.custom_id.length > maxCustomIdChars) throw lineError(lineNo, `\`custom_id\` is longer than ${maxCustomIdChars} characters`, 'custom_id');
  if (line.method !== 'POST') throw lineError(lineNo, '`method` must be "POST"', 'method');
  if (typeof line.url !== 'string') throw lineError(lineNo, '`url` must be a string', 'url');
  if (typeof line.body !== 'object' || line.body === null || Array.isArray(line.body)) throw lineError(lineNo, '`body` must be a JSON object', 'body');
  return line as unknown as BatchInputLine;
}

export function lineError(lineNo: number, problem: string, param?: string): GatewayError {
  return invalidRequest(`Line ${lineNo}: ${problem}`, param);
}

/**
 * The upload's pass-through check: the bytes go on unchanged to storage while each complete line
 * is read (`readBatchLine`), so a bad line stops the upload at once, named. Blank lines are
 * skipped (a trailing newline is usual). `lines` counts the requests.
 */
export class BatchFileCheck extends Transform {
  lines = 0;
  bytes = 0;
  private lineNo = 0;
  private rest = '';
  private readonly decoder = new StringDecoder('utf8');

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.bytes += chunk.length;
    try {
      this.checkLines(this.decoder.write(chunk), false);
    } catch (error) {
      callback(error as Error);
      return;
    }
    callback(null, chunk);
  }

  override _flush(callback: TransformCallback): void {
    try {
      this.checkLines(this.decoder.end(), true);
      if (this.lines === 0) throw invalidRequest('The file has no lines: a batch input file holds one JSON request per line', 'file');
    } catch (error) {
      callback(error as Error);
      return;
    }
    callback();
  }

  private checkLines(text: string, last: boolean): void {
    const lines = (this.rest + text).split('\n');
    this.rest = last ? '' : lines.pop()!;
    for (const line of lines) {
      this.lineNo++;
      if (line.trim() === '') continue;
      readBatchLine(line, this.lineNo);
      this.lines++;
    }
  }
}

/** The lines of a stored file with their numbers (blank ones skipped), read as a stream. */
export async function* readFileLines(source: Readable): AsyncGenerator<{ lineNo: number; text: string }> {
  const reader = createInterface({ input: source, crlfDelay: Infinity });
  let lineNo = 0;
  for await (const text of reader) {
    lineNo++;
    if (text.trim() !== '') yield { lineNo, text };
  }
}
