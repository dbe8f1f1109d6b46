import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { anthropicChunksRecording, recording, replayAdvisorYaml, replayCatalogYaml, type Recording, type ReplayProvider } from '../helpers/replay-provider.js';
import type { SimulatedGateway } from '../helpers/simulated-gateway.js';
import { useReplayGateway } from '../helpers/use-replay-gateway.js';

/**
 * Real advisor answers (vercel/ai's recordings, see the Anthropic fixtures' SOURCES.md) replayed
 * through the three styles: the model's usage is the executor's own passes (`type: "message"`),
 * the advisor model's passes are reported apart, and the charge prices each at its own model's
 * price as before (the advisor model is in the catalog at 5 / 25 USD per M, the executor at 1 / 2).
 */
let replay: ReplayProvider;
let gateway: SimulatedGateway;
let openai: OpenAI;
let anthropic: Anthropic;

interface Case {
  name: string;
  recording: () => Recording;
  executor: { input: number; output: number };
  advisor: { input: number; output: number };
}

// The sums of each recording's `usage.iterations`: `message` passes and the `advisor_message` pass.
const cases: Case[] = [
  { name: 'non-streamed', recording: () => recording('anthropic/anthropic-advisor-20260301.1.json'), executor: { input: 1051 + 1363, output: 35 + 3165 }, advisor: { input: 2728, output: 874 } },
  { name: 'streamed', recording: () => anthropicChunksRecording('anthropic-advisor-20250301.1.chunks.txt'), executor: { input: 1051 + 3676, output: 35 + 3356 }, advisor: { input: 2728, output: 3880 } },
];
const advisorModel = 'claude-opus-4-7';

/** The charge in USD as the gateway priced these answers before usage was reported apart. */
function chargeOf(c: Case): number {
  return (c.executor.input * 1 + c.executor.output * 2 + c.advisor.input * 5 + c.advisor.output * 25) / 1e6;
}

useReplayGateway({ catalogYaml: (url) => replayCatalogYaml(url) + replayAdvisorYaml(advisorModel), credits: 1000 }, (started) => ({ replay, gateway, openai, anthropic } = started));

const streamed = (c: Case) => c.name === 'streamed';
const input = [{ role: 'user' as const, content: 'Plan the parser fix' }];

describe.each(cases)('a recorded advisor answer, $name', (c) => {
  it('Chat Completions: the executor as the usage, the advisor in advisor_usage, the same charge', async () => {
    replay.play(c.recording());
    let usage: OpenAI.CompletionUsage | undefined;
    if (streamed(c)) {
      const stream = await openai.chat.completions.create({ model: 'rec/anthropic', messages: input, max_tokens: 8000, stream: true, stream_options: { include_usage: true } });
      for await (const chunk of stream) usage = chunk.usage ?? usage;
    } else {
      usage = (await openai.chat.completions.create({ model: 'rec/anthropic', messages: input, max_tokens: 8000 })).usage;
    }
    expect(usage).toMatchObject({ prompt_tokens: c.executor.input, completion_tokens: c.executor.output, total_tokens: c.executor.input + c.executor.output });
    const extra = usage as unknown as { advisor_usage: unknown; cost: number };
    expect(extra.advisor_usage).toEqual([{ model: advisorModel, prompt_tokens: c.advisor.input, completion_tokens: c.advisor.output, total_tokens: c.advisor.input + c.advisor.output, prompt_tokens_details: { cached_tokens: 0 } }]);
    expect(extra.cost).toBeCloseTo(chargeOf(c), 12);
  });

  it('Responses: the executor as the usage, the advisor in advisor_usage, the same charge', async () => {
    replay.play(c.recording());
    let usage: OpenAI.Responses.ResponseUsage | undefined;
    if (streamed(c)) {
      const stream = openai.responses.stream({ model: 'rec/anthropic', input: 'Plan the parser fix', max_output_tokens: 8000 });
      usage = (await stream.finalResponse()).usage;
    } else {
      usage = (await openai.responses.create({ model: 'rec/anthropic', input: 'Plan the parser fix', max_output_tokens: 8000 })).usage;
    }
    expect(usage).toMatchObject({ input_tokens: c.executor.input, output_tokens: c.executor.output, total_tokens: c.executor.input + c.executor.output });
    const extra = usage as unknown as { advisor_usage: unknown; cost: number };
    expect(extra.advisor_usage).toEqual([
      { model: advisorModel, input_tokens: c.advisor.input, output_tokens: c.advisor.output, total_tokens: c.advisor.input + c.advisor.output, input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 } },
    ]);
    expect(extra.cost).toBeCloseTo(chargeOf(c), 12);
  });

  it.each(['rec/anthropic', 'rec/anthropic-native'])('Messages (%s): the executor as the usage, the advisor in usage.iterations, the same charge', async (model) => {
    replay.play(c.recording());
    let usage: Anthropic.Usage | Anthropic.MessageDeltaUsage | undefined;
    if (streamed(c)) {
      // The stable SDK's accumulated message keeps only the counts it types; the closing
      // message_delta carries the whole usage, as Anthropic's own does.
      for await (const event of anthropic.messages.stream({ model, max_tokens: 8000, messages: input })) if (event.type === 'message_delta') usage = event.usage;
    } else {
      usage = (await anthropic.messages.create({ model, max_tokens: 8000, messages: input })).usage;
    }
    expect(usage).toMatchObject({ input_tokens: c.executor.input, output_tokens: c.executor.output });
    const extra = usage as unknown as { iterations: Array<Record<string, unknown>>; cost: number };
    const advisorPasses = extra.iterations.filter((pass) => pass.type === 'advisor_message');
    expect(advisorPasses).toMatchObject([{ model: advisorModel, input_tokens: c.advisor.input, output_tokens: c.advisor.output }]);
    const ownPasses = extra.iterations.filter((pass) => pass.type === 'message');
    expect(ownPasses.reduce((sum, pass) => sum + (pass.input_tokens as number), 0)).toBe(c.executor.input);
    expect(ownPasses.reduce((sum, pass) => sum + (pass.output_tokens as number), 0)).toBe(c.executor.output);
    expect(extra.cost).toBeCloseTo(chargeOf(c), 12);
  });
});
