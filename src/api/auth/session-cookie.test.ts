import { describe, expect, it } from 'vitest';
import { cookieIsSecure } from './session-cookie.js';

describe('cookieIsSecure', () => {
  it('leaves Secure off only for plain http to loopback', () => {
    expect(cookieIsSecure('http://127.0.0.1:8080')).toBe(false);
    expect(cookieIsSecure('http://localhost:3000')).toBe(false);
    expect(cookieIsSecure('http://[::1]:3000')).toBe(false);
  });

  it('sets it for https, for plain http elsewhere, and when the origin is not configured', () => {
    expect(cookieIsSecure('https://ai.example.com')).toBe(true);
    expect(cookieIsSecure('https://localhost')).toBe(true);
    expect(cookieIsSecure('http://ai.example.com')).toBe(true);
    expect(cookieIsSecure('http://10.0.0.5')).toBe(true);
    expect(cookieIsSecure(null)).toBe(true);
  });
});
