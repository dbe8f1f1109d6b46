import type { Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, SimpleSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { readPackageVersion } from '../config/read-package-version.js';

/** The tracer of one process and how to flush it on shutdown. */
export interface Tracing {
  tracer: Tracer;
  shutdown(): Promise<void>;
}

/**
 * Tracing is on when an OTLP endpoint is configured (the OpenTelemetry SDK's own variables:
 * `OTEL_EXPORTER_OTLP_ENDPOINT`, or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` for traces alone);
 * otherwise there is no tracer and the request path builds no span objects at all.
 * `OTEL_SDK_DISABLED=true` turns it off whatever the endpoint.
 */
export function createTracingFromEnv(env: NodeJS.ProcessEnv): Tracing | null {
  if (env.OTEL_SDK_DISABLED === 'true') return null;
  const url = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || (env.OTEL_EXPORTER_OTLP_ENDPOINT && `${env.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/$/, '')}/v1/traces`);
  if (!url) return null;
  // The exporter reads headers, timeout and compression from the OTEL_EXPORTER_OTLP_* variables itself.
  return createTracing(new OTLPTraceExporter({ url }), env.OTEL_SERVICE_NAME || 'switchyard');
}

/**
 * A tracer whose spans go to `exporter` in batches, off the request path. Tests pass an in-memory
 * exporter and `batch: false`, so that each span is there as soon as it ends.
 */
export function createTracing(exporter: SpanExporter, serviceName = 'switchyard', batch = true): Tracing {
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': serviceName, 'service.version': readPackageVersion() }),
    spanProcessors: [batch ? new BatchSpanProcessor(exporter) : new SimpleSpanProcessor(exporter)],
  });
  return { tracer: provider.getTracer('switchyard', readPackageVersion()), shutdown: () => provider.shutdown() };
}
