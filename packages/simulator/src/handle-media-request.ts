import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FalJobStore } from './fal-jobs.js';
import type { FaultStore } from './faults.js';
import { geminiProtocol } from './gemini-protocol.js';
import { handleFalRequest } from './handle-fal-request.js';
import type { MediaRoute } from './match-media-route.js';
import { MediaDirectiveError, parseMediaDirectives } from './media-directives.js';
import { sendMediaJson } from './media-response.js';
import { azureOpenaiProtocol } from './azure-openai-protocol.js';
import { openaiProtocol } from './openai-protocol.js';
import { readRawBody } from './read-body.js';
import { answerOpenAiImages, answerGeminiImage } from './simulate-images.js';
import { answerGeminiSpeech, answerOpenAiSpeech, textOf } from './simulate-speech.js';
import { answerOpenAiEmbeddings, directiveTextOf } from './simulate-embeddings.js';
import type { StatsRecorder } from './stats.js';
import { trackRequest } from './track-request.js';

export interface MediaSimulatorState {
  falJobs: FalJobStore;
  apiKey?: string;
  faults: FaultStore;
  stats: StatsRecorder;
  nextSequence(): number;
  isShuttingDown(): boolean;
}

/**
 * Answers one speech or image request. OpenAI and Gemini media requests count in the stats of
 * their protocol and take fault rules (`status`, `retry_after`, `latency`) like text requests;
 * a `[[sim:status=N]]` directive in the prompt or input answers that status too.
 */
export async function handleMediaRequest(request: IncomingMessage, response: ServerResponse, route: MediaRoute, query: URLSearchParams, state: MediaSimulatorState): Promise<void> {
  const scope = trackRequest(response, state.stats, state.isShuttingDown);
  const body = await readRawBody(request);
  if (body === undefined || scope.closed) return;
  if (route.kind.startsWith('fal-')) return handleFalRequest(request, response, route as Extract<MediaRoute, { kind: `fal-${string}` }>, body, { jobs: state.falJobs, apiKey: state.apiKey });

  const protocol = route.kind.startsWith('openai') ? 'openai' : 'gemini';
  const azure = 'azure' in route ? route.azure : undefined;
  const adapter = protocol === 'openai' ? (azure ? azureOpenaiProtocol : openaiProtocol) : geminiProtocol;
  const sequence = state.nextSequence();
  const contentType = String(request.headers['content-type'] ?? '');
  const json = contentType.startsWith('application/json') ? parseObject(body) : {};
  const model = 'model' in route ? route.model : (azure?.deployment ?? (typeof json.model === 'string' ? json.model : ''));
  state.stats.recordRequest(protocol, model);
  const fail = (status: number, message?: string, headers: Record<string, string> = {}) => {
    const error = adapter.encodeError(status, { sequence, message });
    sendMediaJson(response, error.status, error.body, headers);
  };
  if (state.apiKey !== undefined && !adapter.isAuthorized(request.headers, query, state.apiKey)) {
    const error = adapter.encodeAuthError({ sequence });
    return sendMediaJson(response, error.status, error.body);
  }
  let directive: number | undefined;
  try {
    directive = parseMediaDirectives(Array.isArray(json.input) ? directiveTextOf(json.input) : typeof json.input === 'string' ? json.input : typeof json.prompt === 'string' ? json.prompt : textOf(json.contents)).status;
  } catch (error) {
    if (!(error instanceof MediaDirectiveError)) throw error;
    return fail(400, `simulator directive: ${error.message}`);
  }
  const rule = state.faults.take(protocol, model);
  if (rule) state.stats.recordFault();
  if (!(await scope.sleep(rule?.latency ?? 0))) return;
  const status = directive ?? rule?.status;
  if (status !== undefined) return fail(status, undefined, rule?.retry_after !== undefined ? { 'retry-after': String(rule.retry_after) } : {});

  let problem: string | undefined;
  if (route.kind === 'openai-speech') problem = answerOpenAiSpeech(response, json);
  else if (route.kind === 'openai-embeddings') problem = answerOpenAiEmbeddings(response, json, azure?.deployment);
  else if (route.kind === 'openai-images') problem = await answerOpenAiImages(response, route.operation, body, contentType);
  else if (route.kind === 'gemini-speech') problem = answerGeminiSpeech(response, json, route.model);
  else if (route.kind === 'gemini-image') problem = answerGeminiImage(response, json, route.model);
  if (problem !== undefined) fail(400, problem);
}

function parseObject(body: Buffer): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
