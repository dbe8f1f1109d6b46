import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';

/**
 * CORS for browser clients (the AI SDK in a page, a playground), only for the configured origins.
 * Keys travel in headers, so credentials mode stays off: the page's session cookie (`sy_session`)
 * is for the page's own origin only, and no other origin may make a request that carries it and
 * read the answer.
 */
export async function registerCors(app: FastifyInstance, origins: readonly string[]): Promise<void> {
  if (origins.length === 0) return;
  await app.register(cors, {
    origin: origins.includes('*') ? '*' : [...origins],
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: ['authorization', 'x-api-key', 'content-type', 'anthropic-version', 'anthropic-beta', 'x-stainless-os', 'x-stainless-lang', 'x-stainless-package-version', 'x-stainless-runtime', 'x-stainless-runtime-version', 'x-stainless-arch', 'x-stainless-retry-count', 'x-stainless-timeout', 'anthropic-dangerous-direct-browser-access', 'http-referer', 'x-title', 'x-goog-api-key', 'x-goog-api-client', 'x-switchyard-cache', 'x-switchyard-cache-ttl'],
    // Everything the gateway adds to an answer that a page may want to read: which provider
    // served, what was left out (contract §4), the cost of a speech answer, the token count, and
    // whether the response cache answered and how old its entry is (contract §9).
    exposedHeaders: ['x-request-id', 'retry-after', 'x-should-retry', 'x-switchyard-provider', 'x-switchyard-omitted', 'x-switchyard-cost', 'x-switchyard-token-count', 'x-switchyard-cache', 'age', 'idempotent-replayed'],
    maxAge: 600,
  });
}
