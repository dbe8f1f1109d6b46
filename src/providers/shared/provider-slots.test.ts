import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { ProviderSlots } from './provider-slots.js';
import { UpstreamError } from '../../errors/upstream-error.js';

const open = () => new AbortController().signal;

/** A real pino logger whose lines are kept as `level message`. */
function warnings() {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      const line = JSON.parse(chunk.toString()) as { level: number; msg: string };
      lines.push(`${pino.levels.labels[line.level]} ${line.msg}`);
      done();
    },
  });
  return { lines, logger: pino({ level: 'info' }, sink) };
}

describe('ProviderSlots', () => {
  it('grants up to max at once, lines the rest up first come first served, and hands each freed slot to the next in line', async () => {
    const slots = new ProviderSlots('p', { max: 2, queue: 5, queueTimeoutMs: 10_000 });
    const first = await slots.acquire(open());
    const second = await slots.acquire(open());
    const order: string[] = [];
    const third = slots.acquire(open()).then((release) => (order.push('third'), release));
    const fourth = slots.acquire(open()).then((release) => (order.push('fourth'), release));
    expect([slots.inUse, slots.queued]).toEqual([2, 2]);
    first();
    first(); // a second call frees nothing more
    const releaseThird = await third;
    expect([slots.inUse, slots.queued]).toEqual([2, 1]);
    second();
    const releaseFourth = await fourth;
    expect(order).toEqual(['third', 'fourth']);
    releaseThird();
    releaseFourth();
    expect([slots.inUse, slots.queued]).toEqual([0, 0]);
  });

  it('refuses at once when the line is full, with a retryable service_unavailable, and warns once per episode', async () => {
    const { lines, logger } = warnings();
    const slots = new ProviderSlots('p', { max: 1, queue: 1, queueTimeoutMs: 10_000 }, logger);
    const held = await slots.acquire(open());
    const waiting = slots.acquire(open());
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const refused = await slots.acquire(open()).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(UpstreamError);
      expect(refused).toMatchObject({ code: 'service_unavailable', retryable: true, status: 0, provider: 'p' });
    }
    expect(lines).toEqual(['warn provider p: all 1 connections are busy and 1 calls are waiting; refusing calls (503) until the line clears']);
    held();
    (await waiting)();
    expect(lines).toHaveLength(2);
    expect(lines[1]).toBe('info provider p: connections free again');
  });

  it('refuses a call that waited past queueTimeoutMs, and leaves the line', async () => {
    const slots = new ProviderSlots('p', { max: 1, queue: 4, queueTimeoutMs: 50 });
    const held = await slots.acquire(open());
    const started = performance.now();
    const refused = await slots.acquire(open()).catch((error: unknown) => error);
    expect(performance.now() - started).toBeGreaterThanOrEqual(45);
    expect(refused).toMatchObject({ code: 'service_unavailable' });
    expect((refused as Error).message).toContain('within 50 ms');
    expect(slots.queued).toBe(0);
    held();
    expect(slots.inUse).toBe(0);
  });

  it('drops a waiting call whose client left, as an abort, without giving it a slot', async () => {
    const slots = new ProviderSlots('p', { max: 1, queue: 4, queueTimeoutMs: 10_000 });
    const held = await slots.acquire(open());
    const controller = new AbortController();
    const waiting = slots.acquire(controller.signal).catch((error: unknown) => error);
    controller.abort();
    expect(await waiting).toMatchObject({ code: 'aborted' });
    expect(slots.queued).toBe(0);
    held();
    expect(slots.inUse).toBe(0);
    await expect(slots.acquire(controller.signal)).rejects.toMatchObject({ code: 'aborted' });
  });
});
