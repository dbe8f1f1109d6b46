import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { nanoToUsd } from '../../core/money.js';
import { GatewayError, notFound } from '../../errors/gateway-error.js';
import { decodeUsd } from '../../http/decode-usd.js';
import { createPaymentProvider } from '../../payments/create-payment-provider.js';
import { findPostedReference } from '../../billing/db/post-movement.js';
import { startCheckout } from '../../payments/start-checkout.js';
import { actorOf } from '../../audit/record-audit.js';
import { readAutoTopUp, updateAutoTopUp } from '../../payments/auto-top-up-settings.js';
import { AutoTopUpBody, CheckoutBody, CheckoutParams } from './payment-schemas.js';

/**
 * Top-ups (contract §7, docs/payments.md): a Checkout for the page to redirect to, its status when
 * the customer comes back, and the auto top-up settings. Management keys (and, with sessions,
 * owners and admins) only. Not registered when no payment provider is configured: 404.
 */
export function registerPaymentRoutes(app: FastifyInstance, context: AppContext): void {
  const settings = context.config.payments?.stripe;
  const provider = createPaymentProvider(context.config);
  if (!settings || !provider) return;
  const config = { auth: 'management' as const };

  app.get('/v1/credits/checkout/options', { config: { auth: 'key' } }, async () => ({
    data: {
      provider: provider.name,
      currency: settings.currency,
      amounts: settings.amounts.map(nanoToUsd),
      min: nanoToUsd(settings.min),
      max: nanoToUsd(settings.max),
      fee_percent: nanoToUsd(settings.feePercentNano),
      fee_fixed: nanoToUsd(settings.feeFixed),
    },
  }));

  app.post<{ Body: CheckoutBody }>('/v1/credits/checkout', { schema: { body: CheckoutBody }, config }, async (request) => {
    const publicUrl = context.config.server.publicUrl;
    if (!publicUrl) throw new GatewayError('service_unavailable', 'Top-ups need SWITCHYARD_PUBLIC_URL, the address the payment page sends the customer back to');
    const session = await startCheckout(context, provider, settings, publicUrl, request.principal!.accountId, decodeUsd(request.body.amount, 'amount'), actorOf(request.principal!));
    return { data: { id: session.id, url: session.url } };
  });

  // The page asks after the customer comes back: credited once the webhook has been committed.
  app.get<{ Params: CheckoutParams }>('/v1/credits/checkout/:id', { schema: { params: CheckoutParams }, config }, async (request) => {
    const accountId = request.principal!.accountId;
    const checkout = await provider.findCheckout(request.params.id);
    if (!checkout || checkout.accountId !== accountId) throw notFound(`Checkout '${request.params.id}'`);
    const posted = await findPostedReference(context.store.db, provider.checkoutReference(checkout.id));
    return { data: { id: checkout.id, status: checkout.status, paid: checkout.paid, credited: posted !== undefined, amount: checkout.credits === null ? null : nanoToUsd(checkout.credits) } };
  });

  app.get('/v1/credits/auto-top-up', { config }, async (request) => ({ data: await readAutoTopUp(context, provider, request.principal!.accountId) }));

  app.put<{ Body: AutoTopUpBody }>('/v1/credits/auto-top-up', { schema: { body: AutoTopUpBody }, config }, async (request) => {
    const body = request.body;
    const accountId = request.principal!.accountId;
    await updateAutoTopUp(context, provider, settings, accountId, { enabled: body.enabled, threshold: decodeUsd(body.threshold, 'threshold'), amount: decodeUsd(body.amount, 'amount') }, { actor: actorOf(request.principal!), ip: request.ip });
    return { data: await readAutoTopUp(context, provider, accountId) };
  });
}
