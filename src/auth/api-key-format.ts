import { createHash, hash, randomBytes, timingSafeEqual } from 'node:crypto';

export const apiKeyPrefix = 'sy_';
/** 32 random bytes → 43 base64url characters (256 bits), above the contract's minimum of 40. */
const randomByteCount = 32;
const keyPattern = /^sy_[A-Za-z0-9_-]{40,200}$/;

/** A new API key from the operating system's CSPRNG. Shown once; only its hash is stored. */
export function generateApiKey(): string {
  return apiKeyPrefix + randomBytes(randomByteCount).toString('base64url');
}

/** Runs on every request (the key cache is keyed by it): the one-shot `hash` costs a third of a `Hash` object's update and digest. */
export function hashApiKey(key: string): string {
  return hash('sha256', key, 'hex');
}

/** Whether a string has the shape of one of our keys; cheap rejection before any lookup. */
export function looksLikeApiKey(value: string): boolean {
  return keyPattern.test(value);
}

/** `sy_abc…wxyz`: enough to recognise a key in a list, far too little to use it. */
export function labelApiKey(key: string): string {
  return `${key.slice(0, 6)}…${key.slice(-4)}`;
}

/** Compares two secrets (or their hex hashes) in time independent of where they differ. */
export function secretsEqual(a: string, b: string): boolean {
  const left = createHash('sha256').update(a).digest();
  const right = createHash('sha256').update(b).digest();
  return timingSafeEqual(left, right);
}
