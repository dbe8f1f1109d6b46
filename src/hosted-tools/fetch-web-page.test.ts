import { describe, expect, it } from 'vitest';
import { FetchRefusedError } from '../outbound/fetch-public-url.js';
import { fetchWebPage } from './fetch-web-page.js';

const options = { maxBytes: 200_000, timeoutMs: 2000, signal: AbortSignal.timeout(5000) };

describe('gateway-run web fetch', () => {
  it('refuses private addresses and plain http, as the image-input fetch rules do', async () => {
    const loopback = await fetchWebPage('https://127.0.0.1/admin', options).catch((error: unknown) => error);
    expect(loopback).toBeInstanceOf(FetchRefusedError);
    expect((loopback as FetchRefusedError).reason).toBe('address');
    const metadata = await fetchWebPage('https://metadata.internal/', { ...options, resolve: async () => [{ address: '169.254.169.254', family: 4 }] }).catch((error: unknown) => error);
    expect((metadata as FetchRefusedError).reason).toBe('address');
    const http = await fetchWebPage('http://example.org/', options).catch((error: unknown) => error);
    expect((http as FetchRefusedError).reason).toBe('scheme');
  });
});
