import type { Principal } from '../auth/principal.js';
import type { ErrorStyle } from '../errors/render-error.js';

/**
 * Who may call a route: `none` (health), `optional` (public catalog; a presented key must still
 * be valid), `key` (any active key), `management` (management keys only), `admin` (operator token).
 */
export type AuthLevel = 'none' | 'optional' | 'key' | 'management' | 'admin';

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthLevel;
    errorStyle?: ErrorStyle;
    /** The key may also come as `?key=` (Google's API-key query parameter), for the Gemini style. */
    keyInQuery?: boolean;
  }
  interface FastifyInstance {
    /** Every route as declared (method and URL pattern), collected for the OpenAPI test. */
    declaredRoutes: ReadonlyArray<{ method: string; url: string }>;
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
  interface FastifyInstance {
    /** Every registered method and URL pattern (HEAD included), for the fuzz suite and diagnostics. */
    registeredRoutes: Array<{ method: string; url: string }>;
  }
}
