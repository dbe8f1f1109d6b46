import { createHash } from 'node:crypto';

/**
 * Body fields that do not change the answer's content, only how it is delivered: a stored answer
 * serves both a streamed and a JSON request (contract §9: "`stream` does not matter").
 */
const deliveryFields = new Set(['stream', 'stream_options']);

/**
 * The entry's key: SHA-256 over the account, the endpoint and the body as canonical JSON (object
 * keys sorted at every depth, the delivery fields left out at the top). The account is part of the
 * key and is also stored with the entry and compared on read, so an entry is never served to
 * another account (Bifrost's semantic cache served one virtual key's answers to another,
 * maximhq/bifrost#7862): scope is the first rule.
 */
export function cacheKeyOf(accountId: string, endpoint: string, body: Record<string, unknown>): string {
  const hash = createHash('sha256');
  hash.update(accountId);
  hash.update('\n');
  hash.update(endpoint);
  hash.update('\n');
  hash.update(canonicalJson(body, true));
  return hash.digest('hex');
}

/** JSON with object keys in code-point order; `undefined` members left out as JSON.stringify does. */
export function canonicalJson(value: unknown, top = false): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? 'null' : canonicalJson(item))).join(',')}]`;
  const record = value as Record<string, unknown>;
  const members: string[] = [];
  for (const name of Object.keys(record).sort()) {
    const member = record[name];
    if (member === undefined || (top && deliveryFields.has(name))) continue;
    members.push(`${JSON.stringify(name)}:${canonicalJson(member)}`);
  }
  return `{${members.join(',')}}`;
}
