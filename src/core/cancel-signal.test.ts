import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { RequestCancellation, toAbortSignal } from './cancel-signal.js';

describe('RequestCancellation', () => {
  let server: Server | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
    server = undefined;
  });

  it('aborts once, as AbortController does: an AbortError by default, each listener called once', () => {
    const cancellation = new RequestCancellation();
    const heard: unknown[] = [];
    cancellation.addEventListener('abort', () => heard.push(cancellation.reason), { once: true });
    cancellation.addEventListener('abort', (event) => heard.push(event.type));
    expect(cancellation.aborted).toBe(false);
    cancellation.abort();
    cancellation.abort(new Error('second'));
    expect(cancellation.aborted).toBe(true);
    expect(cancellation.reason).toBeInstanceOf(DOMException);
    expect((cancellation.reason as DOMException).name).toBe('AbortError');
    expect(heard).toEqual([cancellation.reason, 'abort']);
  });

  it('gives the APIs that need one a real AbortSignal, made before or after the abort', () => {
    const before = new RequestCancellation();
    const signal = toAbortSignal(before);
    expect(signal).toBeInstanceOf(AbortSignal);
    expect(toAbortSignal(before)).toBe(signal);
    const reason = new Error('client gone');
    before.abort(reason);
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe(reason);
    expect(AbortSignal.any([signal]).aborted).toBe(true);

    const after = new RequestCancellation();
    after.abort(reason);
    expect(toAbortSignal(after).aborted).toBe(true);
    expect(toAbortSignal(after).reason).toBe(reason);

    const plain = new AbortController().signal;
    expect(toAbortSignal(plain)).toBe(plain);
  });

  it('aborts an undici request in flight (the provider call takes it as its signal)', async () => {
    server = createServer(() => {
      // Never answers: only the abort ends the request.
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const cancellation = new RequestCancellation();
    const pending = request(`http://127.0.0.1:${port}/`, { signal: cancellation as unknown as AbortSignal });
    setTimeout(() => cancellation.abort(new Error('client gone')), 20);
    await expect(pending).rejects.toThrow('client gone');
  });
});
