import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { recording, replayAdvisorYaml, replayCatalogYaml, startReplayProvider, type ReplayProvider } from '../helpers/replay-provider.js';
import { startSimulatedGateway, type SimulatedGateway } from '../helpers/simulated-gateway.js';

/**
 * Anthropic's advisor tool: the executor consults a stronger model inside one call, and
 * `usage.iterations` lists the advisor's pass with its model. Anthropic bills that pass at the
 * advisor model's rate; so does the gateway when its catalog knows the model (an endpoint of the
 * same provider serving it), else at the executor's. Relayed (rec/anthropic-native) and
 * translated (rec/anthropic) alike.
 */
let replay: ReplayProvider;
let gateway: SimulatedGateway;
let client: Anthropic;

// The executor's passes: 398 + 412 input, 41 + 55 output; the advisor's: 823 input, 1612 output.
const executorOnly = (398 + 412) * 1 + (41 + 55) * 2;
const advisorAtItsPrice = 823 * 5 + 1612 * 25;
const advisorAtExecutorPrice = 823 * 1 + 1612 * 2;

beforeAll(async () => {
  replay = await startReplayProvider();
  // The advisor model is in the catalog, served by the same provider, at 5 / 25 USD per M.
  gateway = await startSimulatedGateway({ catalogYaml: () => replayCatalogYaml(replay.url) + replayAdvisorYaml('claude-opus-4-6'), credits: 1000 });
  client = new Anthropic({ apiKey: gateway.key, baseURL: gateway.url, maxRetries: 0 });
});
afterAll(async () => {
  await gateway?.close();
  await replay?.close();
});
beforeEach(() => replay.reset());

async function costOf(model: string, body: string): Promise<{ cost: number; usage: Anthropic.Usage }> {
  replay.play({ contentType: 'application/json', body });
  const message = await client.messages.create({ model, max_tokens: 1024, messages: [{ role: 'user', content: 'fix the parser' }] });
  return { cost: (message.usage as unknown as { cost: number }).cost, usage: message.usage };
}

describe.each(['rec/anthropic', 'rec/anthropic-native'])('%s', (model) => {
  const answer = recording('anthropic/advisor-iterations-response.json').body;

  it("prices the advisor's pass at the advisor model's price the catalog knows", async () => {
    const { cost, usage } = await costOf(model, answer);
    expect(cost).toBeCloseTo((executorOnly + advisorAtItsPrice) / 1e6, 12);
    // Every pass is charged; the usage is the executor's own passes (the advisor's is in usage.iterations).
    expect(usage).toMatchObject({ input_tokens: 398 + 412, output_tokens: 41 + 55 });
  });

  it("prices it at the executor's price when the catalog does not know the advisor model", async () => {
    const { cost } = await costOf(model, answer.replace('"claude-opus-4-6"', '"claude-opus-99"'));
    expect(cost).toBeCloseTo((executorOnly + advisorAtExecutorPrice) / 1e6, 12);
  });
});
