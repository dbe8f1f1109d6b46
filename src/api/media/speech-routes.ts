import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.js';
import { startRequestRecord } from '../../billing/start-request-record.js';
import { nanoToUsd } from '../../core/money.js';
import { emptyUsage } from '../../core/usage.js';
import { synthesizeSpeech } from '../../media/synthesize-speech.js';
import { abortOnClientClose } from '../../http/abort-on-client-close.js';
import { decodeSpeechRequest } from './decode-speech-request.js';

const contentTypes = { mp3: 'audio/mpeg', pcm: 'audio/pcm' } as const;

/**
 * POST /v1/audio/speech in OpenAI's shape: the whole audio file in the body, `audio/mpeg` for
 * mp3 and `audio/pcm` (16-bit little-endian, 24 kHz, mono) for pcm. The charge is in
 * `x-switchyard-cost` (USD) and in the request log.
 */
export function registerSpeechRoutes(app: FastifyInstance, context: AppContext): void {
  app.post('/v1/audio/speech', { schema: { body: { type: 'object' } }, config: { auth: 'key' } }, async (request, reply) => {
    const body = request.body as Record<string, unknown>;
    const principal = request.principal!;
    const record = startRequestRecord(context, { requestId: request.id, principal, endpoint: '/audio/speech', body });
    const signal = abortOnClientClose(reply);
    let format: keyof typeof contentTypes;
    let outcome: Awaited<ReturnType<typeof synthesizeSpeech>>;
    try {
      const decoded = decodeSpeechRequest(body);
      format = decoded.request.format;
      outcome = await synthesizeSpeech(context, {
        principal,
        requestId: request.id,
        route: decoded.route,
        request: decoded.request,
        signal,
        record,
      });
    } catch (error) {
      await record.failed(error);
      throw error;
    }
    record.settled(outcome.candidate, { usage: { ...emptyUsage }, cost: outcome.cost, status: 'completed' });
    await record.admitted;
    return reply
      .header('x-switchyard-provider', outcome.candidate.provider.id)
      .header('x-switchyard-cost', String(nanoToUsd(outcome.cost)))
      .type(contentTypes[format])
      .send(outcome.audio);
  });
}
