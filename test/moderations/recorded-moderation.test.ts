import { readFileSync } from 'node:fs';
import type OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { recording, type ReplayProvider } from '../helpers/replay-provider.js';
import { useReplayGateway } from '../helpers/use-replay-gateway.js';

/** OpenAI's answer for omni-moderation-latest (src/providers/openai/__fixtures__/SOURCES.md). */
const recorded = JSON.parse(readFileSync(new URL('../../src/providers/openai/__fixtures__/moderations/moderation-omni.json', import.meta.url), 'utf8')) as { results: unknown[] };

function catalogYaml(replayUrl: string): string {
  return `
limits: {free_daily_requests: 5, requests_per_minute: 0}
providers:
  - {id: rec-openai, name: Recorded OpenAI, api: openai, base_url: "${replayUrl}/v1", api_key: rec-key, timeouts: {connect_ms: 2000, first_byte_ms: 5000, idle_ms: 5000}}
models:
  - id: openai/omni-moderation-latest
    name: "Recorded: omni moderation"
    modalities: {input: [text, image], output: [moderation]}
    endpoints:
      - {provider: rec-openai, model: omni-moderation-latest, pricing: {prompt: 0, completion: 0}}
`;
}

describe('a recorded OpenAI moderation answer through the gateway', () => {
  let replay: ReplayProvider;
  let openai: OpenAI;
  useReplayGateway({ catalogYaml }, (started) => {
    ({ replay, openai } = started);
  });

  it('carries the recorded results unchanged to the OpenAI SDK, under the gateway model id', async () => {
    replay.play(recording('openai/moderations/moderation-omni.json'));
    const moderation = await openai.moderations.create({ input: 'Sample text to moderate' });
    expect(moderation.model).toBe('openai/omni-moderation-latest');
    expect(moderation.results).toEqual(recorded.results);
    expect(replay.requests).toHaveLength(1);
    expect(replay.requests[0].url).toBe('/v1/moderations');
    expect(replay.requests[0].headers.authorization).toBe('Bearer rec-key');
    expect(replay.requests[0].body).toEqual({ model: 'omni-moderation-latest', input: 'Sample text to moderate' });
  });

  it('sends strings as an array and multi-modal parts as OpenAI names them, the image URL as the client gave it', async () => {
    replay.play(recording('openai/moderations/moderation-omni.json'));
    await openai.moderations.create({
      model: 'openai/omni-moderation-latest',
      input: [
        { type: 'text', text: 'Look' },
        { type: 'image_url', image_url: { url: 'https://example.com/picture.png?size=large' } },
      ],
    });
    expect(replay.requests[0].body).toEqual({
      model: 'omni-moderation-latest',
      input: [
        { type: 'text', text: 'Look' },
        { type: 'image_url', image_url: { url: 'https://example.com/picture.png?size=large' } },
      ],
    });
  });

  it('refuses an answer whose results do not match the inputs (a protocol error, in the envelope)', async () => {
    // The recording holds one result; two strings need two.
    replay.play(recording('openai/moderations/moderation-omni.json'));
    const error = (await openai.moderations.create({ input: ['one', 'two'] }).catch((caught: unknown) => caught)) as { status: number; error: { code: string } };
    expect(replay.requests[0].body).toEqual({ model: 'omni-moderation-latest', input: ['one', 'two'] });
    expect(error.status).toBe(502);
    expect(error.error.code).toBe('upstream_error');
  });
});
