import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closeContext, createContext } from '../../src/create-context.js';
import { createTracing, createTracingFromEnv } from '../../src/telemetry/create-tracing.js';
import { readAccountMoney, sendJson, startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';
import { readSseEvents } from '../helpers/read-sse.js';
import { buildTestConfig } from '../helpers/test-config.js';

// The request's spans, collected in memory from the real gateway over real HTTP, with the
// simulator as the provider: names, parentage and the GenAI semantic-convention attributes.

const exporter = new InMemorySpanExporter();
let gateway: SimulatedGateway;

beforeAll(async () => {
  gateway = await startSimulatedGateway({ credits: 100, tracing: createTracing(exporter, 'switchyard-test', false) });
});
afterAll(async () => {
  await gateway?.close();
});
afterEach(() => {
  gateway.simulator.clearFaults();
  exporter.reset();
});

const chat = (model: string, extra: Record<string, unknown> = {}) => ({ model, messages: [{ role: 'user', content: 'hello' }], ...extra });

/** The spans of one request (they share its trace), by name. */
function spansOf(requestId: string): { request: ReadableSpan; children: ReadableSpan[] } {
  const spans = exporter.getFinishedSpans();
  const request = spans.find((span) => span.attributes['switchyard.request_id'] === requestId);
  if (!request) throw new Error(`no request span for ${requestId}; spans: ${spans.map((span) => span.name).join(', ')}`);
  const traceId = request.spanContext().traceId;
  const children = spans.filter((span) => span !== request && span.spanContext().traceId === traceId);
  for (const child of children) expect(child.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
  return { request, children };
}

async function waitForRequestSpan(requestId: string): Promise<void> {
  for (let tries = 0; tries < 100; tries += 1) {
    if (exporter.getFinishedSpans().some((span) => span.attributes['switchyard.request_id'] === requestId)) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('traces of a chat completion', () => {
  for (const [label, model, upstreamModel, provider] of [
    ['relayed to an openai-wire endpoint', 'sim/openai-model', 'gpt-sim', 'openai'],
    ['translated to an anthropic-wire endpoint', 'sim/anthropic-model', 'claude-sim', 'anthropic'],
  ] as const) {
    it(`non-streaming, ${label}: request, route, reserve, the provider call with tokens, settle`, async () => {
      const before = await readAccountMoney(gateway);
      const response = await sendJson(gateway, gateway.key, 'POST', '/v1/chat/completions', chat(model, { max_tokens: 50 }));
      expect(response.status).toBe(200);
      const body = (await response.json()) as { usage: { prompt_tokens: number; completion_tokens: number } };
      const requestId = response.headers.get('x-request-id')!;
      const charged = (await readAccountMoney(gateway)).usage - before.usage;
      await waitForRequestSpan(requestId);
      const { request, children } = spansOf(requestId);

      expect(request.name).toBe(`chat ${model}`);
      expect(request.kind).toBe(SpanKind.SERVER);
      expect(request.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': model,
        'gen_ai.request.stream': false,
        'gen_ai.request.max_tokens': 50,
        'gen_ai.response.model': model,
        'gen_ai.usage.input_tokens': body.usage.prompt_tokens,
        'gen_ai.usage.output_tokens': body.usage.completion_tokens,
        'switchyard.cost.nano_usd': charged.toString(),
        'switchyard.status': 'completed',
      });
      expect(children.map((span) => span.name).sort()).toEqual([`chat ${upstreamModel}`, 'switchyard.reserve', 'switchyard.route', 'switchyard.settle']);
      const attempt = children.find((span) => span.kind === SpanKind.CLIENT)!;
      expect(attempt.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': provider,
        'gen_ai.request.model': upstreamModel,
        'server.address': '127.0.0.1',
        'gen_ai.usage.input_tokens': body.usage.prompt_tokens,
        'gen_ai.usage.output_tokens': body.usage.completion_tokens,
      });
      expect(attempt.attributes['gen_ai.response.time_to_first_chunk']).toBeUndefined();
      const reserve = children.find((span) => span.name === 'switchyard.reserve')!;
      expect(BigInt(reserve.attributes['switchyard.reserved.nano_usd'] as string)).toBeGreaterThanOrEqual(charged);
      expect(children.find((span) => span.name === 'switchyard.settle')!.attributes['switchyard.cost.nano_usd']).toBe(charged.toString());
      expect(children.find((span) => span.name === 'switchyard.route')!.attributes['switchyard.route.candidates']).toBe(1);
      // The request span covers its children (each span anchors its clock to Date.now() when it
      // starts, so spans of one trace agree to within a millisecond or two).
      for (const child of children) expect(hrMillis(child.endTime)).toBeLessThanOrEqual(hrMillis(request.endTime) + 2);
    });

    it(`streaming, ${label}: the provider call has its time to first chunk and the stream's tokens`, async () => {
      const response = await sendJson(gateway, gateway.key, 'POST', '/v1/chat/completions', chat(model, { stream: true, stream_options: { include_usage: true } }));
      expect(response.status).toBe(200);
      const requestId = response.headers.get('x-request-id')!;
      const events = await readSseEvents(response);
      const usage = JSON.parse(events.at(-2)!.data).usage as { prompt_tokens: number; completion_tokens: number };
      await waitForRequestSpan(requestId);
      const { request, children } = spansOf(requestId);
      expect(request.attributes).toMatchObject({ 'gen_ai.request.stream': true, 'gen_ai.usage.output_tokens': usage.completion_tokens, 'switchyard.status': 'completed' });
      const attempt = children.find((span) => span.kind === SpanKind.CLIENT)!;
      expect(attempt.attributes['gen_ai.usage.input_tokens']).toBe(usage.prompt_tokens);
      expect(attempt.attributes['gen_ai.usage.output_tokens']).toBe(usage.completion_tokens);
      const firstChunk = attempt.attributes['gen_ai.response.time_to_first_chunk'] as number;
      expect(firstChunk).toBeGreaterThan(0);
      // Measured on performance.now(), the span on the SDK's clock: equal within a millisecond.
      expect(firstChunk).toBeLessThanOrEqual(hrMillis(attempt.duration) / 1000 + 0.001);
      expect(children.some((span) => span.name === 'switchyard.settle')).toBe(true);
    });
  }

  it('a failed attempt is its own client span with error.type, and the next endpoint serves', async () => {
    gateway.simulator.setFault({ match: { protocol: 'openai', model: 'gpt-everywhere' }, fault: { status: 503 }, times: 1 });
    const response = await sendJson(gateway, gateway.key, 'POST', '/v1/chat/completions', chat('sim/everywhere'));
    expect(response.status).toBe(200);
    const requestId = response.headers.get('x-request-id')!;
    await waitForRequestSpan(requestId);
    const { request, children } = spansOf(requestId);
    const attempts = children.filter((span) => span.kind === SpanKind.CLIENT).sort((a, b) => hrMillis(a.startTime) - hrMillis(b.startTime));
    expect(attempts.map((span) => [span.name, span.attributes['switchyard.attempt'], span.status.code])).toEqual([
      ['chat gpt-everywhere', 0, SpanStatusCode.ERROR],
      ['chat claude-everywhere', 1, SpanStatusCode.UNSET],
    ]);
    expect(attempts[0].attributes).toMatchObject({ 'error.type': 'upstream_error', 'http.response.status_code': 503 });
    expect(children.filter((span) => span.name === 'switchyard.reserve')).toHaveLength(2);
    expect(request.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('a refusal (402) ends the request span in error, with the reservation span saying why', async () => {
    const poor = await gateway.test.createAccount({ credits: 0 });
    const response = await sendJson(gateway, poor.key, 'POST', '/v1/chat/completions', chat('sim/openai-model'));
    expect(response.status).toBe(402);
    const requestId = response.headers.get('x-request-id')!;
    await waitForRequestSpan(requestId);
    const { request, children } = spansOf(requestId);
    expect(request.status.code).toBe(SpanStatusCode.ERROR);
    expect(request.attributes['error.type']).toBe('insufficient_balance');
    const reserve = children.find((span) => span.name === 'switchyard.reserve')!;
    expect(reserve.attributes['error.type']).toBe('insufficient_balance');
    expect(children.some((span) => span.kind === SpanKind.CLIENT)).toBe(false);
  });
});

describe('tracing from the environment', () => {
  it('is off without an OTLP endpoint: no tracer, so no spans are built', async () => {
    expect(createTracingFromEnv({})).toBeNull();
    expect(createTracingFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: 'true' })).toBeNull();
    const context = await createContext(buildTestConfig({ databaseUrl: 'sqlite::memory:' }), { tracing: createTracingFromEnv({}) });
    try {
      expect(context.tracer).toBeNull();
    } finally {
      await closeContext(context);
    }
  });

  it('exports over OTLP/HTTP to OTEL_EXPORTER_OTLP_ENDPOINT, flushed on shutdown', async () => {
    const received: Array<{ path: string; body: string }> = [];
    const collector: Server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        received.push({ path: request.url ?? '', body });
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    const { port } = collector.address() as AddressInfo;
    const tracing = createTracingFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` });
    try {
      expect(tracing).not.toBeNull();
      tracing!.tracer.startSpan('chat sim/openai-model', { attributes: { 'gen_ai.operation.name': 'chat' } }).end();
      await tracing!.shutdown();
      expect(received.map((one) => one.path)).toEqual(['/v1/traces']);
      expect(received[0].body).toContain('chat sim/openai-model');
      expect(received[0].body).toContain('gen_ai.operation.name');
    } finally {
      await new Promise((resolve) => collector.close(resolve));
    }
  });
});

function hrMillis(time: [number, number]): number {
  return time[0] * 1000 + time[1] / 1e6;
}
