import { Writable } from 'node:stream';
import pino, { type Logger } from 'pino';

export interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

/** pino's levels, as the JSON lines carry them. */
export const logLevels = { debug: 20, info: 30, warn: 40, error: 50 } as const;

/** A real pino logger at `level` whose JSON lines are parsed into `lines`, for tests that read the gateway's log. */
export function captureLogLines(level = 'debug'): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line.trim()) lines.push(JSON.parse(line) as LogLine);
      done();
    },
  });
  return { logger: pino({ level }, destination), lines };
}
