import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { replayCatalogYaml, startReplayProvider, type ReplayProvider } from './replay-provider.js';
import { startSimulatedGateway, type SimulatedGateway } from './simulated-gateway.js';

export interface ReplayGateway {
  replay: ReplayProvider;
  gateway: SimulatedGateway;
  openai: OpenAI;
  anthropic: Anthropic;
}

/**
 * The replay provider behind a simulated gateway (its catalog `catalogYaml` of the replay URL,
 * `replayCatalogYaml` by default), and the OpenAI and Anthropic SDKs on the gateway without
 * retries, since each queued recording answers one request. Registers its own hooks: `bind` is
 * handed what was started before the file's tests, the replay is reset before each test, and
 * everything closes after all.
 */
export function useReplayGateway(options: { catalogYaml?: (replayUrl: string) => string; credits?: number }, bind: (started: ReplayGateway) => void): void {
  let replay: ReplayProvider | undefined;
  let gateway: SimulatedGateway | undefined;
  beforeAll(async () => {
    const provider = await startReplayProvider();
    replay = provider;
    gateway = await startSimulatedGateway({ catalogYaml: () => (options.catalogYaml ?? replayCatalogYaml)(provider.url), credits: options.credits });
    const openai = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const anthropic = new Anthropic({ apiKey: gateway.key, baseURL: gateway.url, maxRetries: 0 });
    bind({ replay: provider, gateway, openai, anthropic });
  });
  afterAll(async () => {
    await gateway?.close();
    await replay?.close();
  });
  beforeEach(() => replay!.reset());
}
