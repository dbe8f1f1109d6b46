import { pathToFileURL } from 'node:url';
import { WebSocket as UndiciWebSocket } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';

/**
 * The Open Responses compliance suite (vendored unchanged in ./vendor, see its README) driven
 * against the real gateway over real HTTP and WebSocket, one model per upstream wire protocol,
 * the simulator as every provider. The suite's own checks decide pass or fail; this file only
 * supplies the runtime it expects (a server-side WebSocket that sends an Authorization header,
 * which Node 20 lacks as a global) and reports each of its tests as a vitest test.
 */

interface SuiteResult {
  id: string;
  status: 'pending' | 'running' | 'passed' | 'failed' | 'skipped';
  errors?: string[];
}
interface SuiteModule {
  testTemplates: { id: string }[];
  runAllTests(config: Record<string, unknown>, onProgress: (result: SuiteResult) => void): Promise<SuiteResult[]>;
}

/** Loaded by URL so the type checker does not hold the suite's (Bun-style) sources to our compiler settings. */
const suiteUrl = pathToFileURL(new URL('./vendor/src/lib/compliance-tests.ts', import.meta.url).pathname).href;
const suite = (await import(suiteUrl)) as SuiteModule;

const wires = [
  { wire: 'openai', model: 'sim/openai-model' },
  { wire: 'anthropic', model: 'sim/anthropic-model' },
  { wire: 'gemini', model: 'sim/gemini-model' },
] as const;

/**
 * Suite tests that do not pass yet, each with the reason. A listed test that starts passing fails
 * this file, so the list can only shrink.
 */
const notYetPassing: Record<string, string> = {
};

let gateway: SimulatedGateway;
const results = new Map<string, Map<string, SuiteResult>>();
const previousWebSocket = (globalThis as { WebSocket?: unknown }).WebSocket;

beforeAll(async () => {
  (globalThis as { WebSocket?: unknown }).WebSocket = UndiciWebSocket;
  gateway = await startSimulatedGateway({ credits: 100 });
  for (const { model } of wires) {
    const config = { baseUrl: `${gateway.url}/v1`, apiKey: gateway.key, authHeaderName: 'Authorization', useBearerPrefix: true, model, runtime: 'server' };
    const outcome = await suite.runAllTests(config, () => undefined);
    results.set(model, new Map(outcome.map((result) => [result.id, result])));
  }
}, 120_000);

afterAll(async () => {
  (globalThis as { WebSocket?: unknown }).WebSocket = previousWebSocket;
  await gateway?.close();
});

describe.each(wires)('Open Responses compliance suite on the $wire wire ($model)', ({ model }) => {
  it.each(suite.testTemplates.map((template) => template.id))('%s', (id) => {
    const result = results.get(model)?.get(id);
    const outcome = { id, status: result?.status, errors: result?.errors ?? [] };
    if (id in notYetPassing) expect(outcome.status, `${id} now passes; remove it from notYetPassing`).not.toBe('passed');
    else expect(outcome).toEqual({ id, status: 'passed', errors: [] });
  });
});
