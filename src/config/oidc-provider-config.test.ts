import { Value } from '@sinclair/typebox/value';
import { describe, expect, it } from 'vitest';
import { isLoopbackIssuer, OidcProviderConfigSchema } from './oidc-provider-config.js';

const entry = { id: 'google', name: 'Google', issuer: 'https://accounts.google.com', client_id: 'id', client_secret: 'secret' };

describe('OidcProviderConfigSchema', () => {
  it('takes https issuers, and plain http only on a loopback host', () => {
    for (const issuer of ['https://accounts.google.com', 'https://login.example.com/realms/main', 'http://127.0.0.1:4000', 'http://localhost', 'http://[::1]:8080/oidc']) {
      expect(Value.Check(OidcProviderConfigSchema, { ...entry, issuer }), issuer).toBe(true);
    }
    for (const issuer of ['http://accounts.google.com', 'http://localhost.example.com', 'http://127.0.0.1@example.com', 'ftp://example.com', 'https://example.com?x=1', 'accounts.google.com']) {
      expect(Value.Check(OidcProviderConfigSchema, { ...entry, issuer }), issuer).toBe(false);
    }
  });

  it('needs every field, a slug id, and nothing else', () => {
    expect(Value.Check(OidcProviderConfigSchema, entry)).toBe(true);
    expect(Value.Check(OidcProviderConfigSchema, { ...entry, client_secret: '' })).toBe(false);
    expect(Value.Check(OidcProviderConfigSchema, { ...entry, id: 'Google Login' })).toBe(false);
    expect(Value.Check(OidcProviderConfigSchema, { ...entry, scope: 'openid' })).toBe(false);
    const { name: _name, ...withoutName } = entry;
    expect(Value.Check(OidcProviderConfigSchema, withoutName)).toBe(false);
  });
});

describe('isLoopbackIssuer', () => {
  it('is true only for 127.0.0.1, localhost and [::1]', () => {
    expect(isLoopbackIssuer('http://127.0.0.1:4000')).toBe(true);
    expect(isLoopbackIssuer('http://localhost/x')).toBe(true);
    expect(isLoopbackIssuer('http://[::1]:1')).toBe(true);
    expect(isLoopbackIssuer('https://localhost.example.com')).toBe(false);
    expect(isLoopbackIssuer('https://10.0.0.1')).toBe(false);
  });
});
