import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { verifyAwsSignature } from '@switchyard/simulator';
import { signAwsRequest, type AwsCredentials } from './sign-request.js';

/**
 * AWS's published SigV4 test suite (the `v4` vectors as awslabs/aws-c-auth ships them, vendored
 * unchanged under `__fixtures__/aws-signing-test-suite`, see SOURCES.md): our signer must
 * reproduce each published signature, and the simulator's verifier must accept each signed
 * request and refuse it once tampered with. The vectors whose request line carries raw
 * characters (`get-space-*`, `get-utf8`) are left out: our signer takes the URL as it goes on
 * the wire, already percent-encoded, which AWS services then sign encoded once more.
 */
const suite = join(import.meta.dirname, '__fixtures__/aws-signing-test-suite/v4');

interface Context {
  credentials: { access_key_id: string; secret_access_key: string; token?: string };
  region: string;
  service: string;
  sign_body: boolean;
  timestamp: string;
}

interface Vector {
  name: string;
  credentials: AwsCredentials;
  region: string;
  service: string;
  signingDate: Date;
  method: string;
  url: string;
  host: string;
  /** Lowercase names; repeated headers joined with commas in their order, as SigV4 takes them. */
  headers: Record<string, string>;
  body: string;
  signature: string;
}

function readVector(name: string): Vector {
  const read = (file: string) => readFileSync(join(suite, name, file), 'utf8');
  const context = JSON.parse(read('context.json')) as Context;
  const [head, body = ''] = read('request.txt').split(/\r?\n\r?\n/) as [string, string?];
  const [requestLine, ...headerLines] = head.split(/\r?\n/);
  const [method, target] = requestLine!.split(' ') as [string, string];
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const headerName = line.slice(0, colon).toLowerCase();
    const value = line.slice(colon + 1);
    headers[headerName] = headerName in headers ? `${headers[headerName]},${value}` : value;
  }
  const host = headers.host!;
  delete headers.host;
  if (context.sign_body) headers['x-amz-content-sha256'] = createHash('sha256').update(body).digest('hex');
  return {
    name,
    credentials: {
      accessKeyId: context.credentials.access_key_id,
      secretAccessKey: context.credentials.secret_access_key,
      ...(context.credentials.token !== undefined && { sessionToken: context.credentials.token }),
    },
    region: context.region,
    service: context.service,
    signingDate: new Date(context.timestamp),
    method,
    url: `https://${host}${target}`,
    host,
    headers,
    body,
    signature: read('header-signature.txt').trim(),
  };
}

const vectors = readdirSync(suite).sort().map(readVector);

async function sign(vector: Vector): Promise<Record<string, string>> {
  return signAwsRequest(vector.credentials, vector.region, vector.service, { method: vector.method, url: vector.url, headers: vector.headers, body: vector.body }, vector.signingDate);
}

async function verify(vector: Vector, signed: Record<string, string>, change: Partial<{ body: string; headers: Record<string, string> }> = {}) {
  const url = new URL(vector.url);
  return verifyAwsSignature(
    { method: vector.method, path: `${url.pathname}${url.search}`, headers: { host: vector.host, ...vector.headers, ...signed, ...change.headers }, body: change.body ?? vector.body },
    { credentials: [vector.credentials], service: vector.service, now: vector.signingDate },
  );
}

describe('SigV4 against AWS\'s published test suite', () => {
  it('vendors the vectors', () => {
    expect(vectors.length).toBeGreaterThanOrEqual(15);
  });

  it.each(vectors.map((vector) => [vector.name, vector] as const))('%s: our signer reproduces the published signature', async (_name, vector) => {
    const signed = await sign(vector);
    expect(signed.authorization).toMatch(new RegExp(`^AWS4-HMAC-SHA256 Credential=${vector.credentials.accessKeyId}/20150830/us-east-1/service/aws4_request, SignedHeaders=[a-z0-9;-]+, Signature=${vector.signature}$`));
    expect(signed['x-amz-date']).toBe('20150830T123600Z');
    if (vector.credentials.sessionToken) expect(signed['x-amz-security-token']).toBe(vector.credentials.sessionToken);
  });

  it.each(vectors.map((vector) => [vector.name, vector] as const))('%s: the simulator accepts it, and refuses it tampered', async (_name, vector) => {
    const signed = await sign(vector);
    expect(await verify(vector, signed)).toBeUndefined();
    const flipped = signed.authorization!.replace(/.$/, (last) => (last === '0' ? '1' : '0'));
    expect(await verify(vector, { ...signed, authorization: flipped })).toMatchObject({ status: 403, type: 'InvalidSignatureException' });
    expect(await verify(vector, signed, { body: `${vector.body} ` })).toMatchObject({ status: 403, type: 'InvalidSignatureException' });
    expect(await verify(vector, signed, { headers: { 'x-amz-date': '20150830T123601Z' } })).toMatchObject({ status: 403, type: 'InvalidSignatureException' });
  });
});
