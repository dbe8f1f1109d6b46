import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { GatewayError, invalidRequest } from '../../errors/gateway-error.js';
import { applyPaymentEvents } from '../../payments/apply-payment-events.js';
import { createPaymentProvider } from '../../payments/create-payment-provider.js';
import { WebhookSignatureError } from '../../payments/payment-provider.js';

/**
 * `POST /webhooks/stripe`, where Stripe delivers events (docs/payments.md). The signature covers
 * the exact bytes sent, so this route (and only this one, in its own encapsulated scope) takes the
 * body as a raw Buffer whatever its content type, instead of the JSON parser every other route
 * uses. A missing, wrong or stale signature is 400 and changes nothing; the answer is 2xx only
 * once the event's ledger entries are committed, so anything else (a database or Stripe API
 * outage) makes Stripe deliver it again. Not registered when payments are off.
 */
export function registerPaymentWebhookRoutes(app: FastifyInstance, context: AppContext): void {
  const provider = createPaymentProvider(context.config);
  if (!provider) return;
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    scope.post(`/webhooks/${provider.name}`, { config: { auth: 'none' }, bodyLimit: 1024 * 1024 }, async (request) => {
      const raw = request.body;
      if (!Buffer.isBuffer(raw)) throw invalidRequest('A webhook must have a body');
      let events;
      try {
        events = await provider.readWebhook(raw, request.headers);
      } catch (error) {
        if (error instanceof WebhookSignatureError) {
          request.log.info({ reason: error.message }, 'payment webhook refused: signature');
          throw new GatewayError('invalid_request', 'Webhook signature verification failed');
        }
        request.log.warn({ err: error }, 'payment webhook: the provider could not be asked about the event; it will be delivered again');
        throw new GatewayError('service_unavailable', 'The payment provider could not be asked about this event; deliver it again', { cause: error });
      }
      await applyPaymentEvents(context, provider.name, events);
      return { received: true };
    });
  });
}
