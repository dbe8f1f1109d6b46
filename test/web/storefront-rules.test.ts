import { describe, expect, it } from 'vitest';
import { tabsFor } from '../../web/src/role-tabs.js';
import { setsAutoTopUp } from '../../web/src/roles.js';
import { parseCents } from '../../web/src/views/top-up-amount.js';

describe("the storefront page's rules", () => {
  it('reads a typed amount as whole cents, and nothing else', () => {
    expect(parseCents('10')).toBe(1000);
    expect(parseCents('12.5')).toBe(1250);
    expect(parseCents(' 19.99 ')).toBe(1999);
    // 0.1 + 0.2 in floats is 0.30000000000000004; in cents it is exact.
    expect(parseCents('0.30')).toBe(30);
    for (const bad of ['', '1.234', '-5', '1e3', '5,00', 'ten', '.5', '12345678']) expect(parseCents(bad)).toBeNull();
  });

  it('offers billing, alerts and the audit log to owners and admins, keys to members too, and the members list to everyone', () => {
    const ids = (role: Parameters<typeof tabsFor>[0]) => tabsFor(role).map((tab) => tab.id);
    expect(ids('owner')).toEqual(['billing', 'usage', 'requests', 'keys', 'members', 'alerts', 'audit', 'providers', 'models', 'messenger', 'sessions']);
    expect(ids('admin')).toEqual(ids('owner'));
    expect(ids('member')).toEqual(['usage', 'requests', 'keys', 'members', 'models', 'sessions']);
    expect(ids('viewer')).toEqual(['usage', 'requests', 'members', 'models', 'sessions']);
    expect(ids(null)).toEqual(['sessions']);
  });

  it('lets only an owner edit auto top-up (it charges the saved card off-session)', () => {
    expect(setsAutoTopUp('owner')).toBe(true);
    for (const role of ['admin', 'member', 'viewer'] as const) expect(setsAutoTopUp(role)).toBe(false);
  });
});
