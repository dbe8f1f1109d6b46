import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';

/**
 * Open-loop load for the issue 17 probes: request i is sent at `i / rate` seconds whatever the
 * answers before it are doing (a slow gateway does not slow the arrivals, as with real users),
 * over kept-alive connections, and every answer is read to its end and checked against what the
 * simulator was asked to say: a reply of exactly `replyTokens` words and the wire's final event.
 */
export interface LoadRequest {
  wire: 'chat' | 'messages';
  stream: boolean;
  model: string;
  /** The simulator's reply length in words (`[[sim:reply_tokens=N]]`); with its token rate, a stream's duration. */
  replyTokens: number;
  /** The client gives up after this long (an expected abort, not an error). */
  abortAfterMs?: number;
}

export interface LoadOutcome {
  index: number;
  request: LoadRequest;
  /** Milliseconds from the start of the load to sending. */
  sentAtMs: number;
  /** Sending to the last byte. */
  latencyMs: number;
  status: number;
  /** Why the answer is not a complete, correct one (undefined: it is). */
  error?: string;
  aborted: boolean;
}

export interface OpenLoopOptions {
  url: string;
  keys: string[];
  ratePerSecond: number;
  pick(index: number): LoadRequest;
  /** Checked before each send; the load also stops at `maxDurationMs` whatever it says. */
  shouldStop(elapsedMs: number): boolean;
  maxDurationMs: number;
  connections?: number;
  /** Where each wire's requests go on `url` (default: the gateway's `/v1/chat/completions` and `/v1/messages`). */
  paths?: Record<LoadRequest['wire'], string>;
}

const gatewayPaths: Record<LoadRequest['wire'], string> = { chat: '/v1/chat/completions', messages: '/v1/messages' };

export async function runOpenLoopLoad(options: OpenLoopOptions): Promise<LoadOutcome[]> {
  const pool = new Pool(options.url, { connections: options.connections ?? 256, keepAliveTimeout: 30_000, headersTimeout: 60_000, bodyTimeout: 60_000 });
  const outcomes: Array<Promise<LoadOutcome>> = [];
  const started = performance.now();
  const interval = 1000 / options.ratePerSecond;
  try {
    for (let index = 0; ; ) {
      const elapsed = performance.now() - started;
      if (elapsed >= options.maxDurationMs || options.shouldStop(elapsed)) break;
      // Every request due by now goes out, so a late timer does not lower the rate.
      while (index * interval <= elapsed) {
        outcomes.push(sendOne(pool, options, index, started));
        index += 1;
      }
      await new Promise((resolve) => setTimeout(resolve, Math.max(1, Math.min(20, index * interval - elapsed))));
    }
    return await Promise.all(outcomes);
  } finally {
    await pool.destroy();
  }
}

async function sendOne(pool: Pool, options: OpenLoopOptions, index: number, loadStarted: number): Promise<LoadOutcome> {
  const request = options.pick(index);
  const key = options.keys[index % options.keys.length];
  const sent = performance.now();
  const outcome: LoadOutcome = { index, request, sentAtMs: sent - loadStarted, latencyMs: 0, status: 0, aborted: false };
  const controller = new AbortController();
  const timer = request.abortAfterMs === undefined ? undefined : setTimeout(() => controller.abort(), request.abortAfterMs);
  try {
    const response = await pool.request({
      method: 'POST',
      path: (options.paths ?? gatewayPaths)[request.wire],
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(requestBody(request, index)),
      signal: controller.signal,
    });
    outcome.status = response.statusCode;
    const text = await response.body.text();
    outcome.latencyMs = performance.now() - sent;
    outcome.error = response.statusCode === 200 ? checkAnswer(request, text) : `HTTP ${response.statusCode}: ${text.slice(0, 300)}`;
  } catch (error) {
    outcome.latencyMs = performance.now() - sent;
    if (controller.signal.aborted) outcome.aborted = true;
    else outcome.error = `${(error as Error).name}: ${(error as Error).message}${outcome.status ? ` (after HTTP ${outcome.status} headers)` : ''}`;
  } finally {
    clearTimeout(timer);
  }
  return outcome;
}

function requestBody(request: LoadRequest, index: number): object {
  const content = `load request ${index} [[sim:reply_tokens=${request.replyTokens}]]`;
  const body = { model: request.model, max_tokens: request.replyTokens + 50, stream: request.stream, messages: [{ role: 'user', content }] };
  return request.wire === 'chat' && request.stream ? { ...body, stream_options: { include_usage: true } } : body;
}

const countWords = (text: string) => text.split(/\s+/).filter((word) => word.length > 0).length;

/** Undefined when the answer is complete: the whole reply, the stop reason, and a stream's last event. */
export function checkAnswer(request: LoadRequest, text: string): string | undefined {
  try {
    let reply = '';
    let finish: unknown;
    if (!request.stream) {
      const body = JSON.parse(text);
      reply = request.wire === 'chat' ? body.choices?.[0]?.message?.content : body.content?.[0]?.text;
      finish = request.wire === 'chat' ? body.choices?.[0]?.finish_reason : body.stop_reason;
    } else {
      const events = text.split('\n\n').filter((event) => event.trim().length > 0);
      const data = events.map((event) => event.split('\n').find((line) => line.startsWith('data: '))?.slice(6) ?? '');
      const last = data.at(-1);
      if (request.wire === 'chat') {
        if (last !== '[DONE]') return `stream did not end with [DONE]: …${text.slice(-200)}`;
        for (const item of data.slice(0, -1)) {
          const chunk = JSON.parse(item);
          reply += chunk.choices?.[0]?.delta?.content ?? '';
          finish = chunk.choices?.[0]?.finish_reason ?? finish;
        }
      } else {
        if (!last || JSON.parse(last).type !== 'message_stop') return `stream did not end with message_stop: …${text.slice(-200)}`;
        for (const item of data) {
          const event = JSON.parse(item);
          if (event.type === 'content_block_delta') reply += event.delta?.text ?? '';
          if (event.type === 'message_delta') finish = event.delta?.stop_reason;
        }
      }
    }
    const expectedFinish = request.wire === 'chat' ? 'stop' : 'end_turn';
    if (finish !== expectedFinish) return `finish ${String(finish)}, expected ${expectedFinish}`;
    if (typeof reply !== 'string' || countWords(reply) !== request.replyTokens) return `reply of ${typeof reply === 'string' ? countWords(reply) : 'no'} words, expected ${request.replyTokens}`;
    return undefined;
  } catch (error) {
    return `unreadable answer (${(error as Error).message}): ${text.slice(0, 200)}`;
  }
}

/** The q-quantile (0..1) of `values`, nearest rank. */
export function quantile(values: number[], q: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}
