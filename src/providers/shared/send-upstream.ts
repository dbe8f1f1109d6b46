import type { FormData } from 'undici';
import type { CallContext } from '../provider-adapter.js';
import { createProtocolError } from './create-protocol-error.js';
import { sendRequest, toUpstreamError, type UpstreamResponse } from './send-request.js';

export interface UpstreamRequest {
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** A JSON value (sent as application/json), or a multipart form. */
  json?: unknown;
  form?: FormData;
}

/**
 * Sends any request to a configured provider: JSON, a multipart form, or a GET (job status).
 * Same rules as `sendRequest`: 2xx resolves with the open response, an error status or a transport
 * failure rejects with `UpstreamError`.
 */
export async function sendUpstream(context: CallContext, url: string, init: UpstreamRequest): Promise<UpstreamResponse> {
  const { provider } = context;
  const headers: Record<string, string> = { accept: 'application/json', ...provider.headers, ...init.headers };
  let body: string | FormData | undefined;
  if (init.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(init.json);
  } else if (init.form) {
    body = init.form;
  }
  return sendRequest(context, url, { method: init.method, headers, body });
}

/** Reads a binary answer (audio, an image), bounded so that a broken upstream cannot exhaust memory. */
export async function readUpstreamBytes(providerId: string, response: UpstreamResponse, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of response.body) {
      size += (chunk as Buffer).length;
      if (size > maxBytes) {
        response.body.on('error', () => undefined);
        response.body.destroy();
        throw createProtocolError(providerId, `sent more than ${maxBytes} bytes`, '');
      }
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    throw toUpstreamError(providerId, error);
  }
  return Buffer.concat(chunks);
}
