import { createHash, randomBytes } from 'node:crypto';

/** Crockford's base32: no I, L, O or U, so a code read aloud or off paper has one spelling. */
const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
/** 16 characters × 5 bits: 80 random bits, the contract's floor. */
const codeLength = 16;
const prefix = 'SY';

/** A fresh code from the CSPRNG, shown as `SY-XXXX-XXXX-XXXX-XXXX`. */
export function generateCode(): string {
  const bytes = randomBytes(10);
  let bits = 0n;
  for (const byte of bytes) bits = (bits << 8n) | BigInt(byte);
  let body = '';
  for (let index = codeLength - 1; index >= 0; index -= 1) body += alphabet[Number((bits >> BigInt(index * 5)) & 31n)];
  return `${prefix}-${body.slice(0, 4)}-${body.slice(4, 8)}-${body.slice(8, 12)}-${body.slice(12, 16)}`;
}

/**
 * The code's 16 characters as they were generated, or undefined when the text cannot be a code.
 * Case, spaces and dashes do not matter, the `SY` prefix is optional, and the letters Crockford's
 * alphabet reads as digits (I and L as 1, O as 0) are read so: what a customer types from a
 * receipt or a screen should redeem.
 */
export function normalizeCode(text: string): string | undefined {
  let body = text.toUpperCase().replace(/[\s\-_]/g, '');
  if (body.length === codeLength + prefix.length && body.startsWith(prefix)) body = body.slice(prefix.length);
  body = body.replace(/[IL]/g, '1').replace(/O/g, '0');
  if (body.length !== codeLength) return undefined;
  for (const character of body) if (!alphabet.includes(character)) return undefined;
  return body;
}

/** What the database keeps of a code: the SHA-256 (hex) of its normalized text. */
export function hashCode(normalized: string): string {
  return createHash('sha256').update(normalized).digest('hex');
}
