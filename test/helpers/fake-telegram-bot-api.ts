import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface BotApiCall {
  token: string;
  method: string;
  body: { chat_id?: unknown; text?: unknown } & Record<string, unknown>;
}

/** `ok` answers like Telegram; `error` answers 502 {ok: false}; `reset` drops the connection. */
export type BotApiMode = 'ok' | 'error' | 'reset';

export interface FakeTelegramBotApi {
  url: string;
  /** Every request received, failed ones included, in arrival order. */
  calls: BotApiCall[];
  mode: BotApiMode;
  /** Resolves once `count` calls have arrived in total. */
  waitForCalls(count: number, timeoutMs?: number): Promise<BotApiCall[]>;
  close(): Promise<void>;
}

/**
 * A stand-in for Telegram's Bot API (an external service) on 127.0.0.1: records `POST
 * /bot<token>/<method>` calls and answers `{ok: true, result: …}` the way Telegram does.
 */
export async function startFakeTelegramBotApi(): Promise<FakeTelegramBotApi> {
  const waiters: Array<() => void> = [];
  const api: FakeTelegramBotApi = {
    url: '',
    calls: [],
    mode: 'ok',
    waitForCalls(count, timeoutMs = 5_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`expected ${count} Bot API calls, got ${api.calls.length}`)), timeoutMs);
        const check = () => {
          if (api.calls.length < count) return void waiters.push(check);
          clearTimeout(timer);
          resolve(api.calls);
        };
        check();
      });
    },
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };

  const server = createServer(async (request, response) => {
    const body = await readJson(request);
    const match = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(request.url ?? '');
    if (match) api.calls.push({ token: decodeURIComponent(match[1]), method: match[2], body });
    for (const waiter of waiters.splice(0)) waiter();
    if (api.mode === 'reset') {
      request.socket.destroy();
      return;
    }
    const [status, answer] =
      !match ? [404, { ok: false, error_code: 404, description: 'Not Found' }]
      : api.mode === 'error' ? [502, { ok: false, error_code: 502, description: 'Bad Gateway' }]
      : [200, { ok: true, result: { message_id: api.calls.length, chat: { id: body.chat_id, type: 'private' }, date: 0, text: body.text } }];
    response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
  });
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  api.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return api;
}

async function readJson(request: IncomingMessage): Promise<BotApiCall['body']> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as BotApiCall['body'];
  } catch {
    return {};
  }
}
