import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One POST the receiver got: the alert, and whether its signature verified. */
export interface ReceivedDelivery {
  alert: { id: string; type: string; account_id: string; created_at: string; data: Record<string, unknown> };
  signature: string;
  verified: boolean;
  /** What the receiver answered. */
  status: number;
}

/** `ok` answers 204; `error` answers 500; `down` is no server at all (connection refused). */
export type ReceiverMode = 'ok' | 'error' | 'down';

export interface WebhookReceiver {
  url: string;
  deliveries: ReceivedDelivery[];
  /** The deliveries it accepted (2xx) and whose signature verified. */
  accepted(): ReceivedDelivery[];
  setMode(mode: ReceiverMode): Promise<void>;
  close(): Promise<void>;
}

/**
 * A receiver written the way docs/api.md tells an integrator to (not with the gateway's own
 * code): HMAC-SHA-256 of "<t>.<raw body>" with the shared secret, compared in constant time
 * with `v1` of `x-switchyard-signature`.
 */
export function verifySignature(secret: string, rawBody: string, header: string | undefined): boolean {
  const fields = Object.fromEntries((header ?? '').split(',').map((part) => part.split('=', 2)));
  if (!/^\d+$/.test(fields.t ?? '') || !/^[0-9a-f]{64}$/.test(fields.v1 ?? '')) return false;
  const expected = createHmac('sha256', secret).update(`${fields.t}.${rawBody}`).digest();
  return timingSafeEqual(expected, Buffer.from(fields.v1, 'hex'));
}

/** A local webhook receiver on a fixed port that can go down (500, or closed) and come back. */
export async function startWebhookReceiver(secret: string): Promise<WebhookReceiver> {
  const deliveries: ReceivedDelivery[] = [];
  let mode: ReceiverMode = 'ok';
  let server: Server | undefined;
  let port = 0;
  const listen = async () => {
    server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const status = mode === 'error' ? 500 : 204;
        const header = request.headers['x-switchyard-signature'];
        deliveries.push({ alert: JSON.parse(raw), signature: String(header), verified: verifySignature(secret, raw, typeof header === 'string' ? header : undefined), status });
        response.writeHead(status).end();
      });
    });
    await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  };
  const stop = async () => {
    if (!server) return;
    const closing = server;
    server = undefined;
    await new Promise<void>((resolve) => {
      closing.close(() => resolve());
      closing.closeAllConnections();
    });
  };
  await listen();
  return {
    url: `http://127.0.0.1:${port}/hooks/switchyard`,
    deliveries,
    accepted: () => deliveries.filter((delivery) => delivery.status < 300 && delivery.verified),
    async setMode(next) {
      mode = next;
      if (next === 'down') await stop();
      else if (!server) await listen();
    },
    close: stop,
  };
}
