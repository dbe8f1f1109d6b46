import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { Hash } from '@smithy/hash-node';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';

/**
 * The simulator's side of AWS Signature Version 4, as an AWS service checks a request
 * (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-troubleshooting.html): the
 * `Authorization` header is parsed, the access key looked up among the simulator's known
 * credentials, the signature recomputed over the headers it names with AWS's own signer, and
 * compared. The refusals are AWS's (403 with the error type in `x-amzn-ErrorType` and a JSON
 * `{message}`), so that a signing bug on our side fails a test the way it would fail in production.
 */

/** An AWS access key pair, with the session token of temporary credentials. */
export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** Long-term test keys: a request signed with them needs no session token. */
export const simulatorAwsCredentials: AwsCredentials = {
  accessKeyId: 'AKIASIMULATOREXAMPLE1',
  secretAccessKey: 'simulatorSecretKey/K7MDENG/bPxRfiCYEXAMPLE1',
};

/** Temporary test credentials (as STS issues them): their session token must come with every request. */
export const simulatorAwsSessionCredentials: Required<AwsCredentials> = {
  accessKeyId: 'ASIASIMULATOREXAMPLE2',
  secretAccessKey: 'simulatorSessionSecret/K7MDENG/bPxRfiCYEXAMPLE2',
  sessionToken: 'IQoJb3JpZ2luX2VjEsimulatorSessionToken//////////wEaCXVzLWVhc3QtMSJHMEUCIQ==',
};

export const simulatorAwsCredentialSet: readonly AwsCredentials[] = [simulatorAwsCredentials, simulatorAwsSessionCredentials];

/** How far `x-amz-date` may be from the server's clock (AWS: 15 minutes, then "Signature expired"). */
const maxSkewMs = 15 * 60 * 1000;

export interface AwsRequestToVerify {
  method: string;
  /** The request target as received: percent-encoded path and query. */
  path: string;
  headers: IncomingHttpHeaders;
  body: string | Uint8Array;
}

export interface AwsAuthRefusal {
  status: number;
  /** AWS's error type, sent in `x-amzn-ErrorType`. */
  type: string;
  message: string;
}

const invalidSignatureMessage = 'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.';
const invalidTokenMessage = 'The security token included in the request is invalid.';

const authorizationPattern = /^AWS4-HMAC-SHA256 Credential=([^/,\s]+)\/(\d{8})\/([^/,\s]+)\/([^/,\s]+)\/aws4_request,\s*SignedHeaders=([a-z0-9_.-]+(?:;[a-z0-9_.-]+)*),\s*Signature=([0-9a-f]{64})$/;

/**
 * Checks a SigV4-signed request: undefined when it is authentic, else AWS's refusal. A request
 * with a bearer `Authorization` (a Bedrock API key) is left to the caller: `bearer` is returned
 * through `readBearerToken`.
 */
export async function verifyAwsSignature(
  request: AwsRequestToVerify,
  options: { credentials: readonly AwsCredentials[]; service: string; now?: Date },
): Promise<AwsAuthRefusal | undefined> {
  const authorization = headerValue(request.headers, 'authorization');
  if (authorization === undefined || authorization === '') return { status: 403, type: 'MissingAuthenticationTokenException', message: 'Missing Authentication Token' };
  const match = authorizationPattern.exec(authorization);
  if (!match) {
    return { status: 403, type: 'IncompleteSignatureException', message: `Authorization header requires 'Credential', 'SignedHeaders' and 'Signature' parameters. Authorization=${authorization.split(' ')[0]}` };
  }
  const [, accessKeyId, day, region, service, signedHeaderList, signature] = match as unknown as [string, string, string, string, string, string, string];
  const credentials = options.credentials.find((candidate) => candidate.accessKeyId === accessKeyId);
  if (!credentials) return { status: 403, type: 'UnrecognizedClientException', message: invalidTokenMessage };
  if (credentials.sessionToken !== undefined && headerValue(request.headers, 'x-amz-security-token') !== credentials.sessionToken) {
    return { status: 403, type: 'UnrecognizedClientException', message: invalidTokenMessage };
  }
  const signedHeaders = signedHeaderList.split(';');
  if (!signedHeaders.includes('host')) return { status: 403, type: 'InvalidSignatureException', message: `'Host' must be a 'SignedHeader' in the AWS Authorization.` };
  const amzDate = headerValue(request.headers, 'x-amz-date');
  const signingDate = amzDate === undefined ? undefined : parseAmzDate(amzDate);
  if (!signingDate) return { status: 403, type: 'IncompleteSignatureException', message: 'Authorization header requires existence of either a \'X-Amz-Date\' or a \'Date\' header.' };
  if (amzDate!.slice(0, 8) !== day) return { status: 403, type: 'InvalidSignatureException', message: `Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '${day}' != '${amzDate!.slice(0, 8)}', from '${amzDate}'.` };
  const now = options.now ?? new Date();
  if (Math.abs(now.getTime() - signingDate.getTime()) > maxSkewMs) {
    return { status: 403, type: 'InvalidSignatureException', message: `Signature expired: ${amzDate} is now earlier than ${formatAmzDate(new Date(now.getTime() - maxSkewMs))} (${formatAmzDate(now)} - 15 min.)` };
  }
  if (service !== options.service) return { status: 403, type: 'InvalidSignatureException', message: `Credential should be scoped to correct service: '${options.service}'.` };
  const bodyHash = createHash('sha256').update(request.body).digest('hex');
  const declaredHash = headerValue(request.headers, 'x-amz-content-sha256');
  if (declaredHash !== undefined && declaredHash !== bodyHash && declaredHash !== 'UNSIGNED-PAYLOAD') {
    return { status: 403, type: 'InvalidSignatureException', message: 'The provided x-amz-content-sha256 header does not match what was computed.' };
  }

  // Concatenated, not resolved: a path that starts with `//` is not a host.
  const target = new URL(`http://verifier.invalid${request.path.startsWith('/') ? '' : '/'}${request.path}`);
  const headers: Record<string, string> = {};
  for (const name of signedHeaders) headers[name] = headerValue(request.headers, name) ?? '';
  const query: Record<string, string | string[]> = {};
  for (const [name, value] of target.searchParams) {
    const previous = query[name];
    query[name] = previous === undefined ? value : Array.isArray(previous) ? [...previous, value] : [previous, value];
  }
  const signer = new SignatureV4({ credentials, region, service, sha256: Sha256, applyChecksum: false });
  const expected = await signer.sign(
    new HttpRequest({ method: request.method, hostname: headers.host ?? '', path: target.pathname, query, headers, body: request.body }),
    { signingDate, signableHeaders: new Set(signedHeaders) },
  );
  const expectedSignature = /Signature=([0-9a-f]{64})$/.exec(String(expected.headers.authorization))?.[1] ?? '';
  const expectedSignedHeaders = /SignedHeaders=([^,]+),/.exec(String(expected.headers.authorization))?.[1];
  if (expectedSignedHeaders !== signedHeaderList || !timingSafeEqual(Buffer.from(expectedSignature), Buffer.from(signature))) {
    return { status: 403, type: 'InvalidSignatureException', message: invalidSignatureMessage };
  }
  return undefined;
}

/** The token of a bearer `Authorization` header (a Bedrock API key), if that is what the request carries. */
export function readBearerToken(headers: IncomingHttpHeaders): string | undefined {
  const match = /^Bearer (\S+)$/.exec(headerValue(headers, 'authorization') ?? '');
  return match?.[1];
}

class Sha256 extends Hash {
  constructor(secret?: ConstructorParameters<typeof Hash>[1]) {
    super('sha256', secret);
  }
}

/** A header as one string: repeated values joined by commas, as SigV4's canonical form takes them. */
function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(',') : value;
}

function parseAmzDate(value: string): Date | undefined {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second] = match.map(Number) as [number, number, number, number, number, number, number];
  return new Date(Date.UTC(year, month - 1, day, hour, minute, second));
}

function formatAmzDate(date: Date): string {
  return date.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
}
