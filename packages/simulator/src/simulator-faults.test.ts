import Anthropic from '@anthropic-ai/sdk';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { postJson, readFirstSseEvents, readSseEvents, readUntilClosed, waitFor } from './__fixtures__/read-sse-events.js';
import type { Simulator } from './simulator-types.js';
import { startSimulator } from './start-simulator.js';

let simulator: Simulator;
let openai: OpenAI;
let anthropic: Anthropic;

beforeAll(async () => {
  simulator = await startSimulator();
  openai = new OpenAI({ apiKey: 'unused', baseURL: simulator.baseUrls.openai, maxRetries: 0 });
  anthropic = new Anthropic({ apiKey: 'unused', baseURL: simulator.baseUrls.anthropic, maxRetries: 0 });
});
afterAll(() => simulator.close());
beforeEach(() => simulator.reset());

const chat = (content: string, extra: Record<string, unknown> = {}, signal?: AbortSignal) =>
  postJson(`${simulator.baseUrls.openai}/chat/completions`, { model: 'gpt-sim', messages: [{ role: 'user', content }], ...extra }, {}, signal);
const ask = (content: string) => openai.chat.completions.create({ model: 'gpt-sim', messages: [{ role: 'user', content }] });
const askClaude = (content: string) => anthropic.messages.create({ model: 'claude-sim', max_tokens: 5, messages: [{ role: 'user', content }] });
const gemini = (content: string, action = 'generateContent') =>
  postJson(`${simulator.baseUrls.gemini}/models/gemini-sim:${action}`, { contents: [{ parts: [{ text: content }] }] });
const parseEvents = (text: string) => {
  const events: EventSourceMessage[] = [];
  createParser({ onEvent: (event) => events.push(event) }).feed(text);
  return events;
};

describe('status faults', () => {
  it('answers in each protocol error shape', async () => {
    const openaiError = await ask('[[sim:status=500]]').catch((error: unknown) => error);
    expect(openaiError).toBeInstanceOf(OpenAI.InternalServerError);
    expect((openaiError as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({ type: 'server_error' });

    const anthropicError = await askClaude('[[sim:status=529]]').catch((error: unknown) => error);
    expect(anthropicError).toMatchObject({ status: 529, error: { type: 'error', error: { type: 'overloaded_error' } } });

    const geminiResponse = await gemini('[[sim:status=503]]');
    expect(geminiResponse.status).toBe(503);
    expect(await geminiResponse.json()).toEqual({ error: { code: 503, message: expect.any(String), status: 'UNAVAILABLE' } });
    expect(simulator.stats().faultsInjected).toBe(3);
  });

  it('sends retry-after with a 429 (and Gemini RetryInfo), before any stream starts', async () => {
    const response = await chat('[[sim:status=429,retry_after=1]]', { stream: true });
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('1');
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toMatchObject({ error: { type: 'requests', code: 'rate_limit_exceeded' } });

    const geminiResponse = await gemini('[[sim:status=429,retry_after=2]]');
    expect(geminiResponse.headers.get('retry-after')).toBe('2');
    expect(await geminiResponse.json()).toMatchObject({ error: { status: 'RESOURCE_EXHAUSTED', details: [{ retryDelay: '2s' }] } });
  });

  it('rejects an unknown directive key with a 400 instead of ignoring it', async () => {
    const response = await chat('[[sim:statu=500]]');
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toContain('unknown fault key: statu');
  });
});

describe('timing faults', () => {
  it('waits `latency` ms before the headers', async () => {
    const started = performance.now();
    const response = await chat('[[sim:latency=150]] hi');
    expect(response.status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(145);
  });

  it('disconnects a stream after N events, and a non-stream before its headers', async () => {
    const response = await chat('[[sim:disconnect_after=3]]', { stream: true });
    const { text, error } = await readUntilClosed(response);
    expect(error).toBeDefined();
    expect(parseEvents(text)).toHaveLength(3);

    await expect(chat('[[sim:disconnect_after=0]]')).rejects.toThrow();
    // The server hung up on purpose: that is not a client abort.
    await waitFor(() => simulator.stats().open === 0);
    expect(simulator.stats().aborted).toBe(0);
  });

  it('sends a truncated JSON event after N events, then ends the stream', async () => {
    const response = await postJson(`${simulator.baseUrls.anthropic}/v1/messages`, {
      model: 'claude-sim',
      max_tokens: 50,
      stream: true,
      messages: [{ role: 'user', content: '[[sim:malformed_after=2]]' }],
    });
    const events = await readSseEvents(response);
    expect(events.map((event) => event.event)).toEqual(['message_start', 'content_block_start', 'ping']);
    expect(() => JSON.parse(events[2].data)).toThrow(SyntaxError);

    const broken = await chat('[[sim:malformed_after=1]]');
    expect(broken.status).toBe(200);
    await expect(broken.json()).rejects.toThrow(SyntaxError);
  });

  it('stalls after N events with the connection open, and counts the client abort', async () => {
    const controller = new AbortController();
    const response = await chat('[[sim:stall_after=2]]', { stream: true }, controller.signal);
    expect(await readFirstSseEvents(response, 2)).toHaveLength(2);
    const reader = response.body!.getReader();
    const silence = new Promise((resolve) => setTimeout(() => resolve('silence'), 300));
    const next = await Promise.race([reader.read().then(() => 'data', () => 'error'), silence]);
    expect(next).toBe('silence');
    expect(simulator.stats().open).toBe(1);
    controller.abort();
    await waitFor(() => simulator.stats().open === 0);
    expect(simulator.stats().aborted).toBe(1);
  });
});

describe('content faults', () => {
  it('no_usage leaves usage out of every protocol', async () => {
    expect(await (await chat('[[sim:no_usage]]')).json()).not.toHaveProperty('usage');
    const stream = await openai.chat.completions.create({
      model: 'gpt-sim',
      messages: [{ role: 'user', content: '[[sim:no_usage]]' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.some((chunk) => chunk.usage)).toBe(false);
    expect(chunks.at(-1)?.choices[0].finish_reason).toBe('stop');

    const geminiStream = await gemini('[[sim:no_usage]]', 'streamGenerateContent?alt=sse');
    expect((await readSseEvents(geminiStream)).some((event) => 'usageMetadata' in JSON.parse(event.data))).toBe(false);
    const claude = await askClaude('[[sim:no_usage]]');
    expect(claude).not.toHaveProperty('usage');
  });

  it('error_after sends the protocol in-stream error event', async () => {
    const stream = await openai.chat.completions.create({
      model: 'gpt-sim',
      messages: [{ role: 'user', content: '[[sim:error_after=3]]' }],
      stream: true,
    });
    const received: string[] = [];
    const failure = await (async () => {
      for await (const chunk of stream) received.push(chunk.choices[0]?.delta.content ?? '');
    })().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect(received).toHaveLength(3);

    const body = { model: 'c', max_tokens: 9, stream: true, messages: [{ role: 'user', content: '[[sim:error_after=4]]' }] };
    const response = await postJson(`${simulator.baseUrls.anthropic}/v1/messages`, body);
    const events = await readSseEvents(response);
    expect(events.at(-1)?.event).toBe('error');
    expect(JSON.parse(events.at(-1)!.data)).toMatchObject({ type: 'error', error: { type: 'overloaded_error' } });
  });
});
