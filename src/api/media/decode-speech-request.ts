import type { RouteRequest } from '../../core/provider-preferences.js';
import { speechFormats, type SpeechFormat, type SpeechRequest } from '../../core/speech-request.js';
import { invalidRequest, unsupportedParameter } from '../../errors/gateway-error.js';
import { decodeRouteRequest } from '../shared/decode-route-request.js';

const speechFields = new Set(['model', 'models', 'provider', 'input', 'voice', 'response_format', 'speed']);

/**
 * Reads `POST /audio/speech` in OpenAI's shape. Voices are checked against the model when it is
 * routed; formats are `mp3` (default) and `pcm`; anything else is refused naming the field.
 */
export function decodeSpeechRequest(body: Record<string, unknown>): { route: RouteRequest; request: SpeechRequest } {
  for (const name of Object.keys(body)) {
    if (!speechFields.has(name)) throw unsupportedParameter(name);
  }
  const route = decodeRouteRequest(body);
  const { input, voice, response_format: format = 'mp3', speed } = body;
  if (typeof input !== 'string' || input.length === 0) throw invalidRequest("'input' is required: the text to speak", 'input');
  if (typeof voice !== 'string' || voice.length === 0) throw invalidRequest("'voice' is required", 'voice');
  if (typeof format !== 'string' || !speechFormats.includes(format as SpeechFormat)) {
    throw invalidRequest(`'response_format' must be one of ${speechFormats.join(', ')}`, 'response_format');
  }
  if (speed !== undefined && (typeof speed !== 'number' || !Number.isFinite(speed) || speed < 0.25 || speed > 4)) {
    throw invalidRequest("'speed' must be a number from 0.25 to 4", 'speed');
  }
  return { route, request: { input, voice, format: format as SpeechFormat, speed: speed as number | undefined } };
}
