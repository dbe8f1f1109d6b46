import { expect } from 'vitest';
import { readAccountMoney, type SimulatedGateway } from './simulated-gateway.js';

/** What `run` cost, from the ledger: the account's usage before and after, with nothing left reserved. */
export async function measureCharge(gateway: SimulatedGateway, run: () => Promise<unknown>): Promise<bigint> {
  const before = await readAccountMoney(gateway);
  await run();
  const after = await readAccountMoney(gateway);
  expect(after.reserved).toBe(0n);
  return after.usage - before.usage;
}
