import { ConfigError } from './config-error.js';
import type { S3FileStorageConfig } from './types.js';

/** The S3 settings as written: the config file's `files.s3` section, or the `SWITCHYARD_FILES_S3_*` variables. */
export interface S3StorageEntry {
  bucket?: string;
  region?: string;
  endpoint?: string;
  prefix?: string;
  force_path_style?: boolean;
  access_key_id?: string;
  secret_access_key?: string;
  session_token?: string;
}

/** Each field's environment variable. */
export const s3StorageVariables: Record<keyof S3StorageEntry, string> = {
  bucket: 'SWITCHYARD_FILES_S3_BUCKET',
  region: 'SWITCHYARD_FILES_S3_REGION',
  endpoint: 'SWITCHYARD_FILES_S3_ENDPOINT',
  prefix: 'SWITCHYARD_FILES_S3_PREFIX',
  force_path_style: 'SWITCHYARD_FILES_S3_FORCE_PATH_STYLE',
  access_key_id: 'SWITCHYARD_FILES_S3_ACCESS_KEY_ID',
  secret_access_key: 'SWITCHYARD_FILES_S3_SECRET_ACCESS_KEY',
  session_token: 'SWITCHYARD_FILES_S3_SESSION_TOKEN',
};

// https://docs.aws.amazon.com/AmazonS3/latest/userguide/bucketnamingrules.html
const bucketName = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const regionName = /^[a-z0-9][a-z0-9-]{0,62}$/;
// S3's "safe characters" of object keys: https://docs.aws.amazon.com/AmazonS3/latest/userguide/object-keys.html
const prefixText = /^[A-Za-z0-9!_.*'()\/-]{1,900}$/;

/**
 * Checks the S3 settings and fills their defaults. `fail` names the field where it is written
 * (`files.s3.bucket`, or `SWITCHYARD_FILES_S3_BUCKET`). Access keys go in pairs; an access key
 * named but empty (an unset `${VAR}`) is refused rather than replaced by the default chain, so a
 * missing secret never makes the gateway sign with whatever else the machine holds.
 */
export function normalizeS3Storage(entry: S3StorageEntry, fail: (field: keyof S3StorageEntry, expected: string) => never): S3FileStorageConfig {
  const bucket = entry.bucket ?? '';
  if (!bucketName.test(bucket) || bucket.includes('..')) fail('bucket', `expected a bucket name (3 to 63 lowercase letters, digits, dots and hyphens), got ${JSON.stringify(bucket)}`);
  const endpoint = entry.endpoint ? normalizeEndpoint(entry.endpoint, fail) : null;
  const region = entry.region || (endpoint ? 'us-east-1' : undefined);
  if (region === undefined) fail('region', "expected the bucket's region (e.g. eu-west-1); it may only be left out with an endpoint");
  if (!regionName.test(region!)) fail('region', `expected a region name like eu-west-1 (or auto), got ${JSON.stringify(region)}`);
  return {
    bucket,
    region: region!,
    endpoint,
    prefix: normalizePrefix(entry.prefix ?? '', fail),
    forcePathStyle: entry.force_path_style ?? false,
    credentials: normalizeCredentials(entry, fail),
  };
}

function normalizeEndpoint(text: string, fail: (field: keyof S3StorageEntry, expected: string) => never): string {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    fail('endpoint', `expected the http(s) URL of an S3-compatible service, got ${JSON.stringify(text)}`);
  }
  if ((url!.protocol !== 'https:' && url!.protocol !== 'http:') || url!.username || url!.password || url!.search || url!.hash) {
    fail('endpoint', `expected an http(s) URL with no credentials, query or fragment, got ${JSON.stringify(text)}`);
  }
  return text;
}

function normalizePrefix(text: string, fail: (field: keyof S3StorageEntry, expected: string) => never): string {
  const trimmed = text.replace(/^\/+|\/+$/g, '');
  if (trimmed === '') return '';
  const segments = trimmed.split('/');
  if (!prefixText.test(trimmed) || segments.some((segment) => segment === '' || segment === '.' || segment === '..')) {
    fail('prefix', `expected a key prefix of letters, digits and !_.*'()- in /-separated segments (no empty, . or .. segment), got ${JSON.stringify(text)}`);
  }
  return `${trimmed}/`;
}

function normalizeCredentials(entry: S3StorageEntry, fail: (field: keyof S3StorageEntry, expected: string) => never): S3FileStorageConfig['credentials'] {
  const named = (value: string | undefined): boolean => value !== undefined;
  if (!named(entry.access_key_id) && !named(entry.secret_access_key)) {
    if (named(entry.session_token)) fail('session_token', 'expected access_key_id and secret_access_key with a session token');
    return null;
  }
  if (!entry.access_key_id) fail('access_key_id', named(entry.access_key_id) ? 'expected an access key id, got an empty value (an unset variable?)' : 'expected the access key id that goes with secret_access_key');
  if (!entry.secret_access_key) fail('secret_access_key', named(entry.secret_access_key) ? 'expected a secret access key, got an empty value (an unset variable?)' : 'expected the secret access key that goes with access_key_id');
  if (named(entry.session_token) && !entry.session_token) fail('session_token', 'expected a session token, got an empty value (an unset variable?)');
  return { accessKeyId: entry.access_key_id!, secretAccessKey: entry.secret_access_key!, ...(entry.session_token && { sessionToken: entry.session_token }) };
}

/**
 * The `SWITCHYARD_FILES_S3_*` variables, checked; null when none is set. An empty variable counts
 * as unset (the default chain then provides the credentials when no key is set).
 */
export function readS3StorageEnv(env: NodeJS.ProcessEnv): S3FileStorageConfig | null {
  const entry: S3StorageEntry = {};
  for (const [field, name] of Object.entries(s3StorageVariables) as Array<[keyof S3StorageEntry, string]>) {
    const text = env[name];
    if (text === undefined || text === '') continue;
    if (field === 'force_path_style') entry.force_path_style = readSwitch(name, text);
    else entry[field] = text;
  }
  const fail = (field: keyof S3StorageEntry, expected: string): never => {
    throw new ConfigError(`environment variable ${s3StorageVariables[field]}: ${expected}`);
  };
  if (Object.keys(entry).length === 0) return null;
  if (entry.bucket === undefined) {
    const set = (Object.keys(entry) as Array<keyof S3StorageEntry>).map((field) => s3StorageVariables[field]);
    throw new ConfigError(`environment variable ${s3StorageVariables.bucket}: expected the bucket's name, since ${set.join(', ')} ${set.length === 1 ? 'is' : 'are'} set`);
  }
  return normalizeS3Storage(entry, fail);
}

function readSwitch(name: string, text: string): boolean {
  if (text === '1' || text === 'true') return true;
  if (text === '0' || text === 'false') return false;
  throw new ConfigError(`environment variable ${name}: expected 1, 0, true or false, got "${text}"`);
}
