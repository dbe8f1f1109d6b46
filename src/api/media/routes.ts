import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { registerImageRoutes } from './image-routes.js';
import { registerMediaCatalogRoutes } from './media-catalog-routes.js';
import { registerMediaRequestRoutes } from './media-request-routes.js';
import { registerSpeechRoutes } from './speech-routes.js';

/** Speech, images, the media catalog and quotes, asynchronous media requests and served files. */
export function registerMediaRoutes(app: FastifyInstance, context: AppContext): void {
  registerSpeechRoutes(app, context);
  registerImageRoutes(app, context);
  registerMediaCatalogRoutes(app, context);
  registerMediaRequestRoutes(app, context);
}
