import { Hash } from '@smithy/hash-node';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';

/** Static AWS credentials: an access key pair, and the session token of temporary ones (STS). */
export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** The parts of a request that SigV4 covers. `url` is sent as written (its path already percent-encoded). */
export interface AwsSignableRequest {
  method: string;
  url: string;
  /** Headers to sign besides `host` (which comes from the URL); `content-type` is the usual one. */
  headers: Record<string, string>;
  body: string | Uint8Array | undefined;
}

/** A sha256 constructor bound to the algorithm, as `SignatureV4` wants it. */
class Sha256 extends Hash {
  constructor(secret?: ConstructorParameters<typeof Hash>[1]) {
    super('sha256', secret);
  }
}

/** One signer per credentials, region and service: `SignatureV4` caches its derived day keys. */
const signers = new WeakMap<AwsCredentials, Map<string, SignatureV4>>();

function signerFor(credentials: AwsCredentials, region: string, service: string): SignatureV4 {
  let byScope = signers.get(credentials);
  if (!byScope) {
    byScope = new Map();
    signers.set(credentials, byScope);
  }
  const scope = `${region}/${service}`;
  let signer = byScope.get(scope);
  if (!signer) {
    // No x-amz-content-sha256 header: Bedrock does not ask for it, and AWS's published test vectors have none.
    signer = new SignatureV4({ credentials, region, service, sha256: Sha256, applyChecksum: false });
    byScope.set(scope, signer);
  }
  return signer;
}

/**
 * AWS Signature Version 4 for one request, by AWS's own signer (`@smithy/signature-v4`): returns
 * the headers to send with it — `authorization`, `x-amz-date` and, for temporary credentials,
 * `x-amz-security-token`. The host (with a non-default port) is signed from the URL, which is
 * what undici sends; the path is canonicalised as AWS's SDKs do for every service but S3 (each
 * segment escaped once more), so a Bedrock model id with `:` is sent as `%3A` and signed as
 * `%253A`. `signingDate` is for AWS's test vectors; otherwise now.
 */
export async function signAwsRequest(
  credentials: AwsCredentials,
  region: string,
  service: string,
  request: AwsSignableRequest,
  signingDate?: Date,
): Promise<Record<string, string>> {
  const url = new URL(request.url);
  const headers: Record<string, string> = { host: url.host };
  for (const [name, value] of Object.entries(request.headers)) headers[name.toLowerCase()] = value;
  const query: Record<string, string | string[]> = {};
  for (const [name, value] of url.searchParams) {
    const previous = query[name];
    query[name] = previous === undefined ? value : Array.isArray(previous) ? [...previous, value] : [previous, value];
  }
  const signed = await signerFor(credentials, region, service).sign(
    new HttpRequest({
      method: request.method,
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port !== '' && { port: Number(url.port) }),
      path: url.pathname,
      query,
      headers,
      body: request.body,
    }),
    signingDate ? { signingDate } : undefined,
  );
  const result: Record<string, string> = {
    authorization: signed.headers.authorization,
    'x-amz-date': signed.headers['x-amz-date'],
  };
  if (credentials.sessionToken !== undefined) result['x-amz-security-token'] = credentials.sessionToken;
  return result;
}
