import type { IncomingMessage, ServerResponse } from 'node:http';
import { answerJinaEmbeddings, answerJinaRerank } from './answer-jina-retrieval.js';
import { answerVoyageEmbeddings, answerVoyageRerank, type RetrievalAnswer } from './answer-voyage-retrieval.js';
import type { FaultStore } from './faults.js';
import { MediaDirectiveError, parseMediaDirectives } from './media-directives.js';
import { sendMediaJson } from './media-response.js';
import { readBody } from './read-body.js';
import type { ReceivedRequest } from './simulator-types.js';
import type { StatsRecorder } from './stats.js';
import { trackRequest } from './track-request.js';

/** Voyage's and Jina's retrieval endpoints: `POST /voyage/v1/{embeddings,rerank}`, `POST /jina/v1/{embeddings,rerank}`. */
export interface RetrievalRoute {
  vendor: 'voyage' | 'jina';
  operation: 'embeddings' | 'rerank';
}

const RETRIEVAL_PATH = /^\/(voyage|jina)\/v1\/(embeddings|rerank)$/;

export function matchRetrievalRoute(method: string, pathname: string): RetrievalRoute | undefined {
  const match = method === 'POST' ? RETRIEVAL_PATH.exec(pathname) : null;
  return match ? { vendor: match[1] as RetrievalRoute['vendor'], operation: match[2] as RetrievalRoute['operation'] } : undefined;
}

export interface RetrievalSimulatorState {
  apiKey?: string;
  faults: FaultStore;
  stats: StatsRecorder;
  isShuttingDown(): boolean;
  recordReceived(received: ReceivedRequest): void;
}

/**
 * Answers one Voyage or Jina request as the vendor would: `Authorization: Bearer` checked when the
 * simulator has a key (both vendors' only scheme), a JSON body, fault rules (`status`,
 * `retry_after`, `latency`) matched by vendor and model like the other routes, a
 * `[[sim:status=N]]` directive in an input, the query or a document, then the answer. Errors are
 * the vendors' `{"detail": ...}`.
 */
export async function handleRetrievalRequest(request: IncomingMessage, response: ServerResponse, route: RetrievalRoute, state: RetrievalSimulatorState): Promise<void> {
  const scope = trackRequest(response, state.stats, state.isShuttingDown);
  const text = await readBody(request);
  if (text === undefined || scope.closed) return;
  const fail = (status: number, detail: unknown, headers: Record<string, string> = {}) => sendMediaJson(response, status, { detail }, headers);
  if (state.apiKey !== undefined && request.headers.authorization !== `Bearer ${state.apiKey}`) {
    return fail(401, route.vendor === 'voyage' ? 'Provided API key is invalid.' : 'Invalid API key');
  }
  let body: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new SyntaxError('not an object');
    body = parsed as Record<string, unknown>;
  } catch {
    return fail(route.vendor === 'voyage' ? 400 : 422, 'the body must be a JSON object');
  }
  const model = typeof body.model === 'string' ? body.model : '';
  state.stats.recordRequest(route.vendor, model);
  state.recordReceived({ protocol: route.vendor, method: 'POST', path: request.url ?? '', headers: { ...request.headers }, rawBody: text, body });
  let directive: number | undefined;
  try {
    directive = parseMediaDirectives(textsOf(body).join('\n')).status;
  } catch (error) {
    if (!(error instanceof MediaDirectiveError)) throw error;
    return fail(400, `simulator directive: ${error.message}`);
  }
  const rule = state.faults.take(route.vendor, model);
  if (rule) state.stats.recordFault();
  if (!(await scope.sleep(rule?.latency ?? 0))) return;
  const status = directive ?? rule?.status;
  if (status !== undefined) return fail(status, `simulated error ${status}`, rule?.retry_after !== undefined ? { 'retry-after': String(rule.retry_after) } : {});
  const answer: RetrievalAnswer =
    route.vendor === 'voyage'
      ? route.operation === 'embeddings'
        ? answerVoyageEmbeddings(body)
        : answerVoyageRerank(body)
      : route.operation === 'embeddings'
        ? answerJinaEmbeddings(body)
        : answerJinaRerank(body);
  sendMediaJson(response, answer.status, answer.body);
}

/** The texts a directive may sit in: the inputs, the query and the documents. */
function textsOf(body: Record<string, unknown>): string[] {
  const texts: string[] = [];
  for (const value of [body.input, body.query, body.documents]) {
    if (typeof value === 'string') texts.push(value);
    else if (Array.isArray(value)) texts.push(...value.filter((item): item is string => typeof item === 'string'));
  }
  return texts;
}
