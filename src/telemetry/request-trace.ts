import { performance } from 'node:perf_hooks';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Span, type Tracer } from '@opentelemetry/api';
import type { Usage } from '../core/usage.js';
import type { Candidate } from '../catalog/candidate.js';
import type { TextProviderApi } from '../core/protocol-descriptor.js';

/**
 * `gen_ai.provider.name` by text protocol (the semantic conventions' well-known values); keyed by
 * the descriptor's text protocols, so a new one does not compile without its name.
 */
const PROVIDER_NAMES: Record<TextProviderApi, string> = { openai: 'openai', anthropic: 'anthropic', gemini: 'gcp.gemini', bedrock: 'aws.bedrock' };

export interface RequestTraceStart {
  requestId: string;
  /** The model the client asked for. */
  model: string;
  stream: boolean;
  maxTokens?: number;
  /** The inbound API style (`chat`, `messages`, `responses`). */
  api: string;
}

export interface TracedSettlement {
  usage: Usage;
  cost: bigint;
  status: string;
  errorCode?: string;
}

/**
 * The spans of one text request, following the OpenTelemetry GenAI semantic conventions
 * (https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/): a `chat {model}` span for
 * the request; under it `switchyard.route`, one `switchyard.reserve` and one `chat {upstream model}`
 * client span per provider attempt (time to first chunk, tokens), and `switchyard.settle`.
 * Built only when tracing is on: callers hold `RequestTrace | undefined` and call `trace?.…`,
 * so with tracing off no span object exists.
 */
export class RequestTrace {
  private readonly request: Span;
  private readonly parent: Context;
  private routing: Span | undefined;
  private attempt: Span | undefined;
  private attemptStartedAt = 0;
  private ended = false;

  constructor(
    private readonly tracer: Tracer,
    start: RequestTraceStart,
  ) {
    this.request = tracer.startSpan(`chat ${start.model}`, {
      kind: SpanKind.SERVER,
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': start.model,
        'gen_ai.request.stream': start.stream,
        ...(start.maxTokens !== undefined && { 'gen_ai.request.max_tokens': start.maxTokens }),
        'switchyard.request_id': start.requestId,
        'switchyard.api': start.api,
      },
    });
    this.parent = trace.setSpan(ROOT_CONTEXT, this.request);
    this.routing = tracer.startSpan('switchyard.route', {}, this.parent);
  }

  routed(candidates: Candidate[]): void {
    this.routing?.setAttribute('switchyard.route.candidates', candidates.length);
    this.routing?.end();
    this.routing = undefined;
  }

  /** Spans the reservation of one attempt (the funds held before the provider is called). */
  async reserve<T extends { reservation: { amount: bigint } }>(candidate: Candidate, run: () => Promise<T>): Promise<T> {
    const span = this.tracer.startSpan('switchyard.reserve', { attributes: { 'switchyard.provider.id': candidate.provider.id } }, this.parent);
    try {
      const planned = await run();
      span.setAttribute('switchyard.reserved.nano_usd', planned.reservation.amount.toString());
      return planned;
    } catch (error) {
      failSpan(span, error);
      throw error;
    } finally {
      span.end();
    }
  }

  /** The provider call: a GenAI client span, ended by `settle` (or `attemptFailed`). */
  startAttempt(candidate: Candidate, index: number): void {
    const endpointModel = candidate.endpoint.model;
    this.attemptStartedAt = performance.now();
    this.attempt = this.tracer.startSpan(
      `chat ${endpointModel}`,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          'gen_ai.operation.name': 'chat',
          'gen_ai.provider.name': PROVIDER_NAMES[candidate.provider.api as TextProviderApi] ?? candidate.provider.api,
          'gen_ai.request.model': endpointModel,
          'server.address': hostOf(candidate.provider.baseUrl),
          'switchyard.provider.id': candidate.provider.id,
          'switchyard.model': candidate.model.id,
          'switchyard.attempt': index,
        },
      },
      this.parent,
    );
    this.request.setAttribute('gen_ai.response.model', candidate.model.id);
  }

  /** A stream's first part has arrived (adapters resolve `stream()` only then). */
  firstChunk(): void {
    this.attempt?.setAttribute('gen_ai.response.time_to_first_chunk', (performance.now() - this.attemptStartedAt) / 1000);
  }

  attemptFailed(error: unknown): void {
    if (!this.attempt) return;
    failSpan(this.attempt, error);
    this.attempt.end();
    this.attempt = undefined;
  }

  /** Spans the charge and ends the attempt and the request: settlement is the last step of a request. */
  async settle<T>(settlement: TracedSettlement, run: () => Promise<T>): Promise<T> {
    const tokens = {
      'gen_ai.usage.input_tokens': settlement.usage.promptTokens,
      'gen_ai.usage.output_tokens': settlement.usage.completionTokens,
    };
    const cost = settlement.cost.toString();
    if (this.attempt) {
      this.attempt.setAttributes({ ...tokens, 'switchyard.usage.estimated': settlement.usage.estimated === true });
      if (settlement.status === 'failed') this.attempt.setStatus({ code: SpanStatusCode.ERROR, message: settlement.errorCode });
      this.attempt.end();
      this.attempt = undefined;
    }
    this.request.setAttributes({ ...tokens, 'switchyard.cost.nano_usd': cost, 'switchyard.status': settlement.status });
    const span = this.tracer.startSpan('switchyard.settle', { attributes: { 'switchyard.cost.nano_usd': cost } }, this.parent);
    try {
      return await run();
    } catch (error) {
      failSpan(span, error);
      failSpan(this.request, error);
      throw error;
    } finally {
      span.end();
      this.endRequest();
    }
  }

  /** The response cache answered (no provider call): the request span ends with the hit's charge. */
  answeredFromCache(cost: bigint): void {
    this.request.setAttributes({ 'switchyard.cache_hit': true, 'switchyard.cost.nano_usd': cost.toString(), 'switchyard.status': 'completed' });
    this.endRequest();
  }

  /** The request ended before any settlement (refused, no provider, every attempt failed). */
  failed(error: unknown): void {
    this.routing?.end();
    this.routing = undefined;
    this.attemptFailed(error);
    if (this.ended) return;
    failSpan(this.request, error);
    this.endRequest();
  }

  private endRequest(): void {
    this.ended = true;
    this.request.end();
  }
}

function failSpan(span: Span, error: unknown): void {
  const { code, status } = error as { code?: unknown; status?: unknown };
  span.setAttribute('error.type', typeof code === 'string' ? code : (error as Error).name ?? 'Error');
  // An upstream failure's HTTP status (0 when no answer came).
  if (typeof status === 'number' && status > 0) span.setAttribute('http.response.status_code', status);
  span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
}

function hostOf(baseUrl: string): string {
  try {
    return new URL(baseUrl).hostname;
  } catch {
    return baseUrl;
  }
}
