import pino from 'pino';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { warmUp, warmUpRequest } from '../../src/cli/warm-up.js';

/**
 * `serve` warms its request path before it listens (src/cli/warm-up.ts): requests through a
 * private copy of the application, in-memory SQLite and the provider simulator behind it. Every
 * one must be answered 200 — a refused one would warm only the refusal — in every API style,
 * streamed and not, over every text protocol. What the warm-up is for (the first seconds of
 * traffic at full speed) is shown by test/load/soak.test.ts, whose first interval fails without it.
 */
function capture() {
  const lines: Array<{ level: number; msg: string; requests?: number; failed?: number }> = [];
  const logger = pino(
    { level: 'info' },
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString()));
        done();
      },
    }),
  );
  return { logger, lines };
}

describe('warm-up before serve listens', () => {
  it('covers every API style, streamed and not, over every text protocol', () => {
    const kinds = Array.from({ length: 24 }, (_, index) => {
      const { path, model, stream } = warmUpRequest(index);
      const style = path.startsWith('/v1beta/') ? 'gemini' : path;
      return `${style} ${model} ${stream}`;
    });
    // 4 styles × 3 protocols × streamed or not, each once in 24 requests.
    expect(new Set(kinds).size).toBe(24);
    expect(new Set(kinds.map((kind) => kind.split(' ')[0]))).toEqual(new Set(['/v1/chat/completions', '/v1/messages', '/v1/responses', 'gemini']));
  });

  it('answers every warm-up request with 200 and says so once', async () => {
    const { logger, lines } = capture();
    const summary = await warmUp(48, logger);
    expect(summary).toMatchObject({ requests: 48, failed: 0 });
    expect(lines.filter((line) => line.msg === 'warmed up')).toEqual([expect.objectContaining({ level: 30, requests: 48, failed: 0 })]);
  }, 60_000);

  it('is off at 0', async () => {
    const { logger, lines } = capture();
    expect(await warmUp(0, logger)).toBeUndefined();
    expect(lines).toEqual([]);
  });
});
