import type { IncomingMessage, ServerResponse } from 'node:http';
import { FaultSyntaxError } from './faults.js';
import { readBody } from './read-body.js';
import type { Simulator } from './simulator-types.js';

/**
 * The /_sim control API, so that tests in another process (or a shell) can drive the simulator:
 * GET /_sim/stats, GET|POST|DELETE /_sim/faults, POST /_sim/reset.
 */
export async function handleControlRequest(
  request: IncomingMessage,
  response: ServerResponse,
  path: string,
  simulator: Pick<Simulator, 'stats' | 'reset' | 'setFault' | 'clearFaults'> & { listFaults(): unknown },
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
