import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../errors/gateway-error.js';
import { hasInvalidText } from '../store/valid-text.js';

/**
 * Refuses a URL whose path or query decodes to text no database can store: a NUL (`%00`) or
 * bytes that are not UTF-8 (a lone surrogate's encoding). Without it such a value reached a
 * PostgreSQL query as a parameter and failed there, as a 500, on PostgreSQL only.
 */
export function registerTextCheck(app: FastifyInstance): void {
  // A callback hook: a plain URL goes on at once, without an async hook's promise.
  app.addHook('onRequest', (request, _reply, done) => {
    const { url } = request.raw;
    if (url === undefined || (!url.includes('%') && !url.includes('\u0000'))) return done();
    let decoded: string;
    try {
      decoded = decodeURIComponent(url.replace(/\+/g, ' '));
    } catch {
      throw new GatewayError('invalid_request', 'The URL holds bytes that are not valid UTF-8');
    }
    if (hasInvalidText(decoded)) throw new GatewayError('invalid_request', 'The URL holds a NUL character or invalid text');
    done();
  });
}
