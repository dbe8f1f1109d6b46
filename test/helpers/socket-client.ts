import { WebSocket } from 'undici';

export type Json = Record<string, any>;

/** A Responses WebSocket client: every message it receives, and how the socket closed. */
export class SocketClient {
  readonly messages: Json[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  private readonly socket: WebSocket;
  private waiters: Array<() => void> = [];

  constructor(url: string, key: string) {
    this.socket = new WebSocket(url.replace(/^http/, 'ws') + '/v1/responses', { headers: { authorization: `Bearer ${key}` } });
    this.socket.addEventListener('message', (event) => {
      this.messages.push(JSON.parse(String(event.data)) as Json);
      for (const wake of this.waiters.splice(0)) wake();
    });
    this.closed = new Promise((resolve) => this.socket.addEventListener('close', (event) => resolve({ code: event.code, reason: event.reason })));
  }

  opened(): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.socket.readyState === WebSocket.OPEN) resolve();
      this.socket.addEventListener('open', () => resolve());
      this.socket.addEventListener('error', () => reject(new Error('socket failed')));
    });
  }

  send(message: Json): void {
    this.socket.send(JSON.stringify(message));
  }

  /** Sends a text frame as it is (JSON or not). */
  sendText(text: string): void {
    this.socket.send(text);
  }

  /** Waits until `count` messages satisfy `match`. */
  async waitFor(match: (message: Json) => boolean, count = 1, timeoutMs = 10_000): Promise<Json[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.messages.filter(match);
      if (found.length >= count) return found;
      if (Date.now() > deadline) throw new Error(`timed out; got ${JSON.stringify(this.messages).slice(0, 500)}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
  }

  close(): void {
    this.socket.close();
  }
}

export const terminal = (message: Json) => ['response.completed', 'response.failed', 'response.incomplete'].includes(message.type);

