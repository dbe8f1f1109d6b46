import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { parseForm } from './parse-form.js';

/**
 * A fake of the part of Stripe's API that Switchyard's payments use, written from Stripe's API
 * reference (https://docs.stripe.com/api) and the SDK's types: a real HTTP server on loopback that
 * the official `stripe` SDK talks to (`api_base`), with form-encoded bodies, `Idempotency-Key`
 * honoured (the same response replayed), and errors in Stripe's shape (`{error: {type, code,
 * message, param}}`). Customers, Checkout Sessions (with a hosted payment page at the session's
 * `url`), PaymentIntents (off-session, confirmed, declinable), Charges, Refunds; disputes are
 * opened and closed by the test, as a cardholder's bank would.
 *
 * Events are built like Stripe's (`object: "event"`, `data.object` a snapshot) and signed with the
 * SDK's own `webhooks.generateTestHeaderString`; the test delivers them (`signed`, `deliver`), or
 * the fake posts each one to `webhookUrl` as it happens (for the browser test).
 */
export interface FakeStripeOptions {
  secretKey?: string;
  webhookSecret?: string;
  /** Every event is posted here, signed, as it happens (in order, one at a time). */
  webhookUrl?: string;
}

type StripeObject = Record<string, unknown> & { id: string };
export interface FakeEvent {
  id: string;
  object: 'event';
  api_version: string;
  created: number;
  data: { object: StripeObject };
  livemode: false;
  pending_webhooks: number;
  request: { id: string | null; idempotency_key: string | null };
  type: string;
}

class StripeHttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
  ) {
    super(String(body.message));
  }
}

const missing = (kind: string, id: string, param = 'id') =>
  new StripeHttpError(404, { type: 'invalid_request_error', code: 'resource_missing', message: `No such ${kind}: '${id}'`, param });
const invalid = (message: string, param?: string) => new StripeHttpError(400, { type: 'invalid_request_error', code: 'parameter_missing', message, param });
const now = () => Math.floor(Date.now() / 1000);
const newId = (prefix: string) => `${prefix}_test_${randomBytes(12).toString('base64url')}`;

export class FakeStripe {
  readonly secretKey: string;
  readonly webhookSecret: string;
  webhookUrl: string | undefined;
  readonly customers = new Map<string, StripeObject>();
  readonly sessions = new Map<string, StripeObject>();
  readonly paymentIntents = new Map<string, StripeObject>();
  readonly charges = new Map<string, StripeObject>();
  readonly refunds = new Map<string, StripeObject>();
  readonly disputes = new Map<string, StripeObject>();
  readonly events: FakeEvent[] = [];
  /** Off-session PaymentIntents are declined (`card_declined`, insufficient funds) while set. */
  declineOffSession = false;
  /** Every request the SDK made: method, path, idempotency key. */
  readonly requests: Array<{ method: string; path: string; idempotencyKey: string | null }> = [];
  url = '';
  private readonly server = createServer((request, response) => void this.handle(request, response));
  private readonly idempotent = new Map<string, Promise<{ status: number; body: unknown }>>();
  private delivery: Promise<unknown> = Promise.resolve();

  constructor(options: FakeStripeOptions = {}) {
    this.secretKey = options.secretKey ?? 'sk_test_fake';
    this.webhookSecret = options.webhookSecret ?? 'whsec_fake';
    this.webhookUrl = options.webhookUrl;
  }

  async listen(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    await this.delivery;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** A payload and its `Stripe-Signature` header, signed now or at `timestamp` (unix seconds), with `secret` (default: the webhook secret). */
  signed(event: FakeEvent, options: { timestamp?: number; secret?: string } = {}): { payload: string; header: string } {
    const payload = JSON.stringify(event, null, 2);
    const header = Stripe.webhooks.generateTestHeaderString({ payload, secret: options.secret ?? this.webhookSecret, timestamp: options.timestamp ?? now() });
    return { payload, header };
  }

  /** Posts an event to `url` as Stripe does (JSON body, `Stripe-Signature`), answering the response. */
  async deliver(url: string, event: FakeEvent, options: { timestamp?: number; secret?: string; header?: string | null } = {}): Promise<Response> {
    const { payload, header } = this.signed(event, options);
    const signature = options.header === undefined ? header : options.header;
    return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json; charset=utf-8', 'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)', ...(signature === null ? {} : { 'stripe-signature': signature }) }, body: payload });
  }

  /** The last event of a type (optionally about one object). */
  lastEvent(type: string, objectId?: string): FakeEvent {
    const found = [...this.events].reverse().find((event) => event.type === type && (objectId === undefined || event.data.object.id === objectId));
    if (!found) throw new Error(`no ${type} event${objectId ? ` for ${objectId}` : ''}`);
    return found;
  }

  /**
   * The customer pays a Checkout Session (what the hosted page's Pay button does). With
   * `paymentStatus: 'unpaid'`, a delayed method: `checkout.session.completed` now, unpaid, and the
   * money later with `succeedAsyncPayment`. Answers the events it made.
   */
  async pay(sessionId: string, options: { paymentStatus?: 'paid' | 'unpaid' } = {}): Promise<FakeEvent[]> {
    const session = this.sessions.get(sessionId);
    if (!session) throw new Error(`no session ${sessionId}`);
    if (session.status !== 'open') throw new Error(`session ${sessionId} is ${String(session.status)}`);
    const paymentMethod = newId('pm');
    const intentData = (session.payment_intent_data ?? {}) as { metadata?: Record<string, string>; setup_future_usage?: string };
    const intent = this.makePaymentIntent({
      amount: Number(session.amount_total),
      currency: String(session.currency),
      customer: (session.customer as string | null) ?? null,
      payment_method: paymentMethod,
      metadata: intentData.metadata ?? {},
      setup_future_usage: intentData.setup_future_usage ?? null,
      status: options.paymentStatus === 'unpaid' ? 'processing' : 'succeeded',
    });
    Object.assign(session, { status: 'complete', payment_status: options.paymentStatus ?? 'paid', payment_intent: intent.id });
    const made = [this.emit('checkout.session.completed', session)];
    if (intent.status === 'succeeded') made.push(...this.succeed(intent));
    return made;
  }

  /** A delayed payment of a Checkout Session arrives. */
  succeedAsyncPayment(sessionId: string): FakeEvent[] {
    const session = this.sessions.get(sessionId)!;
    const intent = this.paymentIntents.get(String(session.payment_intent))!;
    session.payment_status = 'paid';
    const made = this.succeed(intent);
    return [this.emit('checkout.session.async_payment_succeeded', session), ...made];
  }

  /** The cardholder's bank disputes a charge (Stripe has no API for it; test cards do it). */
  openDispute(chargeId: string, amount?: number): FakeEvent {
    const charge = this.charges.get(chargeId)!;
    const dispute: StripeObject = {
      id: newId('dp'),
      object: 'dispute',
      amount: amount ?? Number(charge.amount),
      charge: chargeId,
      payment_intent: charge.payment_intent,
      currency: charge.currency,
      reason: 'fraudulent',
      status: 'needs_response',
      created: now(),
      livemode: false,
      metadata: {},
    };
    this.disputes.set(dispute.id, dispute);
    Object.assign(charge, { disputed: true });
    return this.emit('charge.dispute.created', dispute);
  }

  closeDispute(disputeId: string, status: 'won' | 'lost'): FakeEvent {
    const dispute = this.disputes.get(disputeId)!;
    dispute.status = status;
    return this.emit('charge.dispute.closed', dispute);
  }

  private succeed(intent: StripeObject): FakeEvent[] {
    const charge: StripeObject = {
      id: newId('ch'),
      object: 'charge',
      amount: intent.amount,
      amount_captured: intent.amount,
      amount_refunded: 0,
      captured: true,
      currency: intent.currency,
      customer: intent.customer,
      payment_intent: intent.id,
      payment_method: intent.payment_method,
      metadata: intent.metadata,
      paid: true,
      refunded: false,
      disputed: false,
      status: 'succeeded',
      receipt_url: `${this.url}/receipts/${randomBytes(8).toString('hex')}`,
      created: now(),
      livemode: false,
    };
    this.charges.set(charge.id, charge);
    Object.assign(intent, { status: 'succeeded', latest_charge: charge.id, amount_received: intent.amount });
    if (intent.customer && intent.setup_future_usage) {
      const customer = this.customers.get(String(intent.customer));
      if (customer) customer.invoice_settings = { default_payment_method: null };
    }
    return [this.emit('charge.succeeded', charge), this.emit('payment_intent.succeeded', intent)];
  }

  private makePaymentIntent(fields: { amount: number; currency: string; customer: string | null; payment_method: string | null; metadata: Record<string, string>; setup_future_usage: string | null; status: string }): StripeObject {
    const intent: StripeObject = {
      id: newId('pi'),
      object: 'payment_intent',
      ...fields,
      amount_received: 0,
      client_secret: `${newId('pi')}_secret_${randomBytes(8).toString('hex')}`,
      latest_charge: null,
      last_payment_error: null,
      created: now(),
      livemode: false,
    };
    this.paymentIntents.set(intent.id, intent);
    return intent;
  }

  private emit(type: string, object: StripeObject): FakeEvent {
    const event: FakeEvent = {
      id: newId('evt'),
      object: 'event',
      api_version: '2026-11-18.endive',
      created: now(),
      data: { object: structuredClone(object) },
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      type,
    };
    this.events.push(event);
    const url = this.webhookUrl;
    if (url) this.delivery = this.delivery.then(() => this.deliver(url, event).catch(() => undefined));
    return event;
  }

  /** Waits for the events posted to `webhookUrl` so far. */
  async delivered(): Promise<void> {
    await this.delivery;
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const url = new URL(request.url ?? '/', this.url);
    try {
      if (url.pathname.startsWith('/pay/')) return await this.hostedPage(request.method ?? 'GET', url.pathname.slice(5), response);
      if (url.pathname.startsWith('/receipts/')) return send(response, 200, '<!doctype html><title>Receipt</title><p>Receipt from the fake Stripe.</p>', 'text/html');
      if (request.headers.authorization !== `Bearer ${this.secretKey}`) {
        throw new StripeHttpError(401, { type: 'invalid_request_error', message: 'Invalid API Key provided' });
      }
      const key = typeof request.headers['idempotency-key'] === 'string' ? request.headers['idempotency-key'] : null;
      this.requests.push({ method: request.method ?? 'GET', path: url.pathname, idempotencyKey: key });
      const params = request.method === 'GET' ? parseForm(url.search.slice(1)) : parseForm(body);
      const run = async () => {
        try {
          return { status: 200, body: this.route(request.method ?? 'GET', url.pathname, params) };
        } catch (error) {
          if (error instanceof StripeHttpError) return { status: error.status, body: { error: error.body } };
          throw error;
        }
      };
      // A repeated key answers the first response, however the two requests interleave.
      let answer: Promise<{ status: number; body: unknown }>;
      if (key && request.method === 'POST') {
        const stored = this.idempotent.get(`${url.pathname} ${key}`);
        answer = stored ?? run();
        if (!stored) this.idempotent.set(`${url.pathname} ${key}`, answer);
      } else answer = run();
      const { status, body: result } = await answer;
      send(response, status, JSON.stringify(result), 'application/json', key ? { 'idempotency-key': key } : {});
    } catch (error) {
      if (error instanceof StripeHttpError) return send(response, error.status, JSON.stringify({ error: error.body }), 'application/json');
      send(response, 500, JSON.stringify({ error: { type: 'api_error', message: (error as Error).message } }), 'application/json');
    }
  }

  private route(method: string, path: string, params: Record<string, unknown>): unknown {
    const [, version, resource, id, more] = path.split('/');
    if (version !== 'v1') throw new StripeHttpError(404, { type: 'invalid_request_error', message: `Unrecognized request URL (${method}: ${path})` });
    if (resource === 'customers') return method === 'POST' && !id ? this.createCustomer(params) : this.find(this.customers, 'customer', id);
    if (resource === 'checkout' && id === 'sessions') return method === 'POST' && !more ? this.createSession(params) : this.find(this.sessions, 'checkout.session', more);
    if (resource === 'payment_intents') return method === 'POST' && !id ? this.createPaymentIntent(params) : this.find(this.paymentIntents, 'payment_intent', id);
    if (resource === 'charges' && method === 'GET' && id) return this.find(this.charges, 'charge', id);
    if (resource === 'refunds' && method === 'POST' && !id) return this.createRefund(params);
    if (resource === 'refunds' && method === 'GET' && !id) {
      const data = [...this.refunds.values()].filter((refund) => params.charge === undefined || refund.charge === params.charge).reverse();
      return { object: 'list', data, has_more: false, url: '/v1/refunds' };
    }
    if (resource === 'refunds' && id) return this.find(this.refunds, 'refund', id);
    throw new StripeHttpError(404, { type: 'invalid_request_error', message: `Unrecognized request URL (${method}: ${path})` });
  }

  private find(map: Map<string, StripeObject>, kind: string, id: string | undefined): StripeObject {
    const found = id ? map.get(id) : undefined;
    if (!found) throw missing(kind, id ?? '');
    return publicView(found);
  }

  private createCustomer(params: Record<string, unknown>): StripeObject {
    const customer: StripeObject = { id: newId('cus'), object: 'customer', created: now(), email: params.email ?? null, metadata: params.metadata ?? {}, invoice_settings: { default_payment_method: null }, livemode: false };
    this.customers.set(customer.id, customer);
    return customer;
  }

  private createSession(params: Record<string, unknown>): StripeObject {
    if (params.mode !== 'payment') throw invalid('This fake supports mode=payment only', 'mode');
    if (typeof params.success_url !== 'string') throw invalid('Missing required param: success_url.', 'success_url');
    const items = params.line_items as Array<{ quantity: string; price_data: { currency: string; unit_amount: string; product_data: { name: string } } }> | undefined;
    if (!items?.length) throw invalid('Missing required param: line_items.', 'line_items');
    if (params.customer !== undefined && !this.customers.has(String(params.customer))) throw missing('customer', String(params.customer), 'customer');
    const currencies = new Set(items.map((item) => item.price_data.currency));
    if (currencies.size !== 1) throw invalid('All line items must share one currency', 'line_items');
    const amount = items.reduce((sum, item) => sum + Number(item.price_data.unit_amount) * Number(item.quantity), 0);
    const id = newId('cs');
    const session: StripeObject = {
      id,
      object: 'checkout.session',
      mode: 'payment',
      status: 'open',
      payment_status: 'unpaid',
      amount_subtotal: amount,
      amount_total: amount,
      currency: [...currencies][0],
      client_reference_id: params.client_reference_id ?? null,
      customer: params.customer ?? null,
      metadata: params.metadata ?? {},
      payment_intent: null,
      success_url: params.success_url,
      cancel_url: params.cancel_url ?? null,
      url: `${this.url}/pay/${id}`,
      created: now(),
      expires_at: now() + 24 * 3600,
      livemode: false,
      // Kept for the fake's own use (the PaymentIntent it makes); Stripe does not return these.
      line_items_input: items,
      payment_intent_data: params.payment_intent_data ?? {},
    };
    this.sessions.set(id, session);
    return publicView(session);
  }

  private createPaymentIntent(params: Record<string, unknown>): StripeObject {
    if (params.amount === undefined) throw invalid('Missing required param: amount.', 'amount');
    if (params.currency === undefined) throw invalid('Missing required param: currency.', 'currency');
    if (params.customer !== undefined && !this.customers.has(String(params.customer))) throw missing('customer', String(params.customer), 'customer');
    const intent = this.makePaymentIntent({
      amount: Number(params.amount),
      currency: String(params.currency),
      customer: (params.customer as string | undefined) ?? null,
      payment_method: (params.payment_method as string | undefined) ?? null,
      metadata: (params.metadata as Record<string, string> | undefined) ?? {},
      setup_future_usage: null,
      status: 'requires_payment_method',
    });
    if (params.confirm !== 'true') return publicView(intent);
    if (this.declineOffSession && params.off_session === 'true') {
      const error = { code: 'card_declined', decline_code: 'insufficient_funds', message: 'Your card has insufficient funds.', type: 'card_error' };
      Object.assign(intent, { status: 'requires_payment_method', last_payment_error: error });
      this.emit('payment_intent.payment_failed', intent);
      throw new StripeHttpError(402, { ...error, payment_intent: publicView(intent) });
    }
    this.succeed(intent);
    return publicView(intent);
  }

  private createRefund(params: Record<string, unknown>): StripeObject {
    const charge = this.charges.get(String(params.charge ?? ''));
    if (!charge) throw missing('charge', String(params.charge ?? ''), 'charge');
    const remaining = Number(charge.amount) - Number(charge.amount_refunded);
    const amount = params.amount === undefined ? remaining : Number(params.amount);
    if (amount <= 0 || amount > remaining) throw invalid(`Refund amount ($${(amount / 100).toFixed(2)}) is greater than unrefunded amount on charge ($${(remaining / 100).toFixed(2)})`, 'amount');
    const refund: StripeObject = { id: newId('re'), object: 'refund', amount, charge: charge.id, payment_intent: charge.payment_intent, currency: charge.currency, status: 'succeeded', reason: params.reason ?? null, metadata: params.metadata ?? {}, created: now() };
    this.refunds.set(refund.id, refund);
    Object.assign(charge, { amount_refunded: Number(charge.amount_refunded) + amount, refunded: Number(charge.amount_refunded) + amount === Number(charge.amount) });
    this.emit('charge.refunded', charge);
    this.emit('refund.created', refund);
    return refund;
  }

  /** The hosted payment page: GET shows the amount and a Pay button; POST pays and goes back to `success_url`. */
  private async hostedPage(method: string, sessionId: string, response: ServerResponse): Promise<void> {
    const session = this.sessions.get(sessionId);
    if (!session) return send(response, 404, '<!doctype html><title>Not found</title><p>No such payment page.</p>', 'text/html');
    if (method === 'POST') {
      if (session.status === 'open') await this.pay(sessionId);
      await this.delivered();
      const target = String(session.success_url).replace('{CHECKOUT_SESSION_ID}', sessionId);
      response.writeHead(303, { location: target });
      return void response.end();
    }
    const total = (Number(session.amount_total) / 100).toFixed(2);
    const cancel = session.cancel_url ? `<p><a href="${escapeHtml(String(session.cancel_url))}">Cancel</a></p>` : '';
    send(
      response,
      200,
      `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>Pay ${total} ${String(session.currency).toUpperCase()}</title></head>` +
        `<body><h1>Fake Stripe Checkout</h1><p>Total: <strong data-testid="total">$${total}</strong></p>` +
        `<form method="post" action="/pay/${escapeHtml(sessionId)}"><button type="submit">Pay</button></form>${cancel}</body></html>`,
      'text/html',
    );
  }
}

/** An object as the API shows it: without the fake's own bookkeeping fields. */
function publicView(object: StripeObject): StripeObject {
  const { line_items_input: _items, payment_intent_data: _data, ...rest } = object;
  return structuredClone(rest) as StripeObject;
}

function send(response: ServerResponse, status: number, body: string, type: string, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': `${type}; charset=utf-8`, 'request-id': `req_${randomBytes(7).toString('hex')}`, ...headers });
  response.end(body);
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

export async function startFakeStripe(options: FakeStripeOptions = {}): Promise<FakeStripe> {
  return new FakeStripe(options).listen();
}
