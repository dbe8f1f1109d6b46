import { expect } from 'vitest';
import { GatewayError } from '../gateway-error.js';

/** Test helper: runs what must be refused and returns the `GatewayError` it threw; fails the test otherwise. */
export function catchGatewayError(run: () => unknown): GatewayError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    return error as GatewayError;
  }
  throw new Error('expected a GatewayError to be thrown');
}
