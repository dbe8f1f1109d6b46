import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { OutageEpisodes } from './log-outage-episodes.js';

function capture() {
  const lines: Array<{ level: number; msg: string; failures?: number; code?: string }> = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line.trim()) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, logger: pino({ level: 'debug' }, destination) };
}

const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

describe('outage episodes', () => {
  afterEach(() => vi.useRealTimers());

  it('one warn line for many failures, one info line once the dependency has answered for the quiet period', async () => {
    vi.useFakeTimers();
    const { lines, logger } = capture();
    const episodes = new OutageEpisodes({ logger, dependency: 'database', effect: 'requests are refused', quietMs: 1_000 });
    episodes.answered();
    for (let index = 0; index < 50; index += 1) episodes.failed(refused);
    expect(episodes.down).toBe(true);
    // Flapping inside the quiet period stays the same episode.
    episodes.answered();
    vi.advanceTimersByTime(500);
    episodes.failed(refused);
    vi.advanceTimersByTime(2_000);
    expect(episodes.down).toBe(true);
    episodes.answered();
    vi.advanceTimersByTime(999);
    expect(episodes.down).toBe(true);
    vi.advanceTimersByTime(1);
    expect(episodes.down).toBe(false);
    await vi.runAllTimersAsync();
    expect(lines.map((line) => [line.level, line.msg.split(':')[0].split(' after')[0]])).toEqual([
      [40, 'database is not answering'],
      [30, 'database answers again'],
    ]);
    expect(lines[0].code).toBe('ECONNREFUSED');
    expect(lines[1].failures).toBe(51);
    // The next outage is a new episode.
    episodes.failed(refused);
    await vi.runAllTimersAsync();
    expect(lines.filter((line) => line.level === 40)).toHaveLength(2);
  });

  it('says nothing about failures once closed (the connections are being closed on purpose)', () => {
    const { lines, logger } = capture();
    const episodes = new OutageEpisodes({ logger, dependency: 'redis', effect: 'requests are refused' });
    episodes.close();
    episodes.failed(refused);
    expect(episodes.down).toBe(false);
    expect(lines).toEqual([]);
  });
});
