import type { IncomingMessage, ServerResponse } from 'node:http';
import { FaultSyntaxError } from './faults.js';
import { readBody } from './read-body.js';
import { SIMULATOR_PROTOCOLS, type SimulatedRecording, type Simulator, type SimulatorProtocol } from './simulator-types.js';

/**
 * The /_sim control API, so that tests in another process (or a shell) can drive the simulator:
 * GET /_sim/stats, GET|POST|DELETE /_sim/faults, POST /_sim/recordings, POST /_sim/reset.
 */
export async function handleControlRequest(
  request: IncomingMessage,
  response: ServerResponse,
  path: string,
  simulator: Pick<Simulator, 'stats' | 'reset' | 'setFault' | 'clearFaults' | 'play'> & { listFaults(): unknown },
): Promise<void> {
  const route = `${request.method} ${path.replace(/\/+$/, '')}`;
  switch (route) {
    case 'GET /stats':
      return sendJson(response, 200, simulator.stats());
    case 'GET /faults':
      return sendJson(response, 200, { rules: simulator.listFaults() });
    case 'POST /faults': {
      const text = await readBody(request);
      if (text === undefined) return;
      try {
        return sendJson(response, 201, { id: simulator.setFault(JSON.parse(text)) });
      } catch (error) {
        if (!(error instanceof FaultSyntaxError || error instanceof SyntaxError)) throw error;
        return sendJson(response, 400, { error: { message: error.message } });
      }
    }
    case 'DELETE /faults':
      simulator.clearFaults();
      return sendEmpty(response);
    case 'POST /recordings': {
      // `{protocol, status?, content_type, body, headers?}`: a recorded answer for the next request of the protocol.
      const text = await readBody(request);
      if (text === undefined) return;
      let recording: SimulatedRecording | string;
      try {
        recording = readRecording(JSON.parse(text));
      } catch {
        recording = 'the body is not JSON';
      }
      if (typeof recording === 'string') return sendJson(response, 400, { error: { message: recording } });
      simulator.play(recording);
      return sendJson(response, 201, {});
    }
    case 'POST /reset':
      simulator.reset();
      return sendEmpty(response);
    default:
      return sendJson(response, 404, { error: { message: `no simulator control route ${route}` } });
  }
}

export function sendJson(response: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  response.end(body);
}

function sendEmpty(response: ServerResponse): void {
  response.writeHead(204);
  response.end();
}

/** A recording posted to `/_sim/recordings`, or what is wrong with it. */
function readRecording(value: unknown): SimulatedRecording | string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'a recording must be an object';
  const { protocol, status, content_type: contentType, body, headers } = value as Record<string, unknown>;
  if (!SIMULATOR_PROTOCOLS.includes(protocol as SimulatorProtocol)) return `protocol must be one of ${SIMULATOR_PROTOCOLS.join(', ')}`;
  if (status !== undefined && (typeof status !== 'number' || !Number.isInteger(status) || status < 200 || status > 599)) return 'status must be an HTTP status (200-599)';
  if (typeof contentType !== 'string' || contentType === '') return 'content_type must be a string';
  if (typeof body !== 'string') return 'body must be a string (the answer as recorded)';
  const headerEntries = headers === undefined ? [] : typeof headers === 'object' && headers !== null && !Array.isArray(headers) ? Object.entries(headers) : undefined;
  if (!headerEntries || headerEntries.some(([, header]) => typeof header !== 'string')) return 'headers must map names to strings';
  return { protocol: protocol as SimulatorProtocol, contentType, body, ...(status !== undefined && { status: status as number }), ...(headers !== undefined && { headers: Object.fromEntries(headerEntries) as Record<string, string> }) };
}
