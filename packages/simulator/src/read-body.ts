import type { IncomingMessage } from 'node:http';

/** The raw request body (binary-safe, for multipart uploads), or undefined when the client left. */
export async function readRawBody(request: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of request) chunks.push(chunk as Buffer);
  } catch {
    return undefined;
  }
  return Buffer.concat(chunks);
}

/** The whole request body as text, or undefined when the client went away while sending it. */
export async function readBody(request: IncomingMessage): Promise<string | undefined> {
  return (await readRawBody(request))?.toString('utf8');
}
