import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createFaultStore } from './faults.js';
import { handleControlRequest, sendJson } from './handle-control-request.js';
import { handleProtocolRequest, type SimulatorSettings, type SimulatorState } from './handle-protocol-request.js';
import { matchRoute } from './match-route.js';
import type { ReceivedRequest, SimulatedRecording, Simulator, SimulatorOptions, SimulatorProtocol } from './simulator-types.js';
import { createStatsRecorder } from './stats.js';
import { handleVideoRequest } from './handle-video-request.js';
import { VideoJobStore } from './video-jobs.js';
import { FalJobStore } from './fal-jobs.js';
import { handleMediaRequest } from './handle-media-request.js';
import { createGoogleTokenState, handleGoogleToken } from './google-oauth.js';
import { handleBedrockRetrievalRequest } from './simulate-bedrock-retrieval.js';
import { COHERE_PREFIX, handleCohereRequest } from './handle-cohere-request.js';
import { handleRetrievalRequest, matchRetrievalRoute } from './handle-retrieval-request.js';
import { handleGeminiEmbeddingRequest, matchGeminiEmbeddingRoute } from './simulate-gemini-embeddings.js';
import { BatchStore, handleBatchRequest, matchBatchRoute } from './simulate-batches.js';

const DEFAULT_REPLY_TOKENS = 16;
/** Received requests kept for inspection; bounded so a benchmark run does not grow memory. */
export const RECEIVED_LIMIT = 100;

/** Starts the provider simulator on a real HTTP port (0 picks a free one). */
export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const settings = resolveSettings(options);
  const stats = createStatsRecorder();
  const faults = createFaultStore();
  let sequence = 0;
  let shuttingDown = false;
  const lastByProtocol = new Map<string, ReceivedRequest>();
  let received: ReceivedRequest[] = [];
  const recordReceived = (entry: ReceivedRequest) => {
    lastByProtocol.set(entry.protocol, entry);
    received.push(entry);
    if (received.length > RECEIVED_LIMIT) received = received.slice(-RECEIVED_LIMIT);
  };
  let recordings: SimulatedRecording[] = [];
  const takeRecording = (protocol: SimulatorProtocol) => {
    const index = recordings.findIndex((recording) => recording.protocol === protocol);
    return index === -1 ? undefined : recordings.splice(index, 1)[0];
  };
  const state: SimulatorState = { settings, stats, faults, nextSequence: () => ++sequence, isShuttingDown: () => shuttingDown, recordReceived, takeRecording };
  const videoJobs = new VideoJobStore(options.videoDurationMs ?? 1_000);
  const videoState = {
    jobs: videoJobs,
    apiKey: settings.apiKey,
    pollLatencyMs: options.videoPollLatencyMs ?? 0,
    faults,
    stats,
    nextSequence: () => ++sequence,
    isShuttingDown: () => shuttingDown,
  };
  const falJobs = new FalJobStore(options.imageJobDurationMs ?? 0);
  const mediaState = { falJobs, apiKey: settings.apiKey, faults, stats, nextSequence: () => ++sequence, isShuttingDown: () => shuttingDown };
  const batches = new BatchStore(options.batchDurationMs ?? 1_000, options.batchCompletionWindowMs ?? 24 * 3600 * 1000);
  let selfUrl = '';
  const batchState = { store: batches, apiKey: settings.apiKey, selfUrl: () => selfUrl };
  const googleTokens = createGoogleTokenState(options.googleServiceAccountPublicKey, options.googleTokenLifetimeSeconds);
  const control = {
    stats: () => ({ ...stats.snapshot(), videos: videoJobs.stats(), fal: falJobs.stats(), batches: batches.stats(), googleTokensIssued: googleTokens.issued }),
    lastRequest: (protocol: SimulatorProtocol) => lastByProtocol.get(protocol),
    reset() {
      received = [];
      lastByProtocol.clear();
      stats.reset();
      faults.clear();
      videoJobs.reset();
      falJobs.reset();
      batches.reset();
      googleTokens.issued = 0;
      recordings = [];
    },
    play: (...queued: SimulatedRecording[]) => void recordings.push(...queued),
    setFault: faults.add,
    clearFaults: faults.clear,
    listFaults: faults.list,
    received: () => [...received],
  };

  const server = createServer((request, response) => {
    route(request, response).catch(() => {
      // A bug in the simulator must not hang the client that hit it.
      if (!response.headersSent) sendJson(response, 500, { error: { message: 'simulator internal error' } });
      else response.destroy();
    });
  });
  async function route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = request.url ?? '/';
    const queryAt = url.indexOf('?');
    const pathname = queryAt === -1 ? url : url.slice(0, queryAt);
    const query = new URLSearchParams(queryAt === -1 ? '' : url.slice(queryAt + 1));
    if (request.method === 'POST' && pathname.startsWith(COHERE_PREFIX)) return handleCohereRequest(request, response, pathname.slice(COHERE_PREFIX.length), { ...mediaState, recordReceived, takeRecording });
    const retrieval = matchRetrievalRoute(request.method ?? 'GET', pathname);
    if (retrieval) return handleRetrievalRequest(request, response, retrieval, { ...mediaState, recordReceived });
    const geminiEmbedding = matchGeminiEmbeddingRoute(request.method ?? 'GET', pathname);
    if (geminiEmbedding) return handleGeminiEmbeddingRequest(request, response, geminiEmbedding, query, { ...mediaState, recordReceived });
    const batchRoute = matchBatchRoute(request.method ?? 'GET', pathname);
    if (batchRoute) return handleBatchRequest(request, response, batchRoute, query, batchState);
    const match = matchRoute(request.method ?? 'GET', pathname, query);
    if (match.kind === 'control') return handleControlRequest(request, response, match.path, control);
    if (match.kind === 'protocol') return handleProtocolRequest(request, response, { ...match, query }, state);
    if (match.kind === 'video') return handleVideoRequest(request, response, match.route, query, videoState);
    if (match.kind === 'media') return handleMediaRequest(request, response, match.route, query, mediaState);
    if (match.kind === 'google-token') return handleGoogleToken(request, response, googleTokens);
    if (match.kind === 'bedrock-retrieval') return handleBedrockRetrievalRequest(request, response, { modelId: match.modelId, kind: match.retrieval }, state);
    request.resume();
    sendJson(response, 404, { error: { message: `no simulator route for ${request.method} ${pathname}` } });
  }

  if (options.keepAliveMs !== undefined) server.keepAliveTimeout = options.keepAliveMs;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port, address } = server.address() as AddressInfo;
  const url = `http://${address.includes(':') ? `[${address}]` : address}:${port}`;
  selfUrl = url;
  return {
    url,
    port,
    baseUrls: simulatorBaseUrls(url),
    ...control,
    close() {
      shuttingDown = true;
      return new Promise((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Stalled streams and idle keep-alive sockets would otherwise hold close() forever.
        server.closeAllConnections();
      });
    },
  };
}

/** The base URL each vendor SDK expects, for a simulator at `url`. */
export function simulatorBaseUrls(url: string): Record<SimulatorProtocol, string> {
  return { openai: `${url}/openai/v1`, anthropic: `${url}/anthropic`, gemini: `${url}/gemini/v1beta`, bedrock: `${url}/bedrock`, cohere: `${url}/cohere`, voyage: `${url}/voyage/v1`, jina: `${url}/jina/v1` };
}

function resolveSettings(options: SimulatorOptions): SimulatorSettings {
  const check = (name: string, value: number, minimum: number) => {
    if (!Number.isFinite(value) || value < minimum) throw new RangeError(`simulator option ${name} must be a number >= ${minimum}`);
    return value;
  };
  return {
    latencyMs: check('latencyMs', options.latencyMs ?? 0, 0),
    tokensPerSecond: check('tokensPerSecond', options.tokensPerSecond ?? 0, 0),
    chunkTokens: Math.floor(check('chunkTokens', options.chunkTokens ?? 1, 1)),
    replyTokens: Math.floor(check('replyTokens', options.replyTokens ?? DEFAULT_REPLY_TOKENS, 0)),
    apiKey: options.apiKey === '' ? undefined : options.apiKey,
  };
}
