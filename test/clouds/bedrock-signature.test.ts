import { startSimulator, simulatorAwsCredentials, type Simulator } from '@switchyard/simulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signAwsRequest } from '../../src/providers/aws/sign-request.js';

/**
 * Our SigV4 signer against the simulator's Bedrock route over HTTP, which checks signatures as AWS
 * does: a request signed by us is accepted, and once its body is changed on the way it is
 * refused with AWS's error. (The simulator's own suite checks its verifier with AWS's signer.)
 */
let simulator: Simulator;
const modelId = 'anthropic.claude-sonnet-4-5-20250929-v1:0';
const body = (text: string) => JSON.stringify({ anthropic_version: 'bedrock-2023-05-31', max_tokens: 100, messages: [{ role: 'user', content: text }] });

beforeAll(async () => {
  simulator = await startSimulator({ apiKey: 'bedrock-api-key-sim', replyTokens: 6 });
});
afterAll(() => simulator.close());

describe('our SigV4 signer, checked by the simulator\'s Bedrock route', () => {
  it('a request we sign is accepted; the same signature over a changed body is refused', async () => {
    const url = `${simulator.url}/bedrock/model/${encodeURIComponent(modelId)}/invoke`;
    const signedBody = body('hello');
    const headers = { 'content-type': 'application/json', ...(await signAwsRequest(simulatorAwsCredentials, 'us-east-1', 'bedrock', { method: 'POST', url, headers: { 'content-type': 'application/json' }, body: signedBody })) };
    const genuine = await fetch(url, { method: 'POST', headers, body: signedBody });
    expect(genuine.status).toBe(200);
    const tampered = await fetch(url, { method: 'POST', headers, body: body('hellO') });
    expect(tampered.status).toBe(403);
    expect(tampered.headers.get('x-amzn-errortype')).toMatch(/^InvalidSignatureException:/);
  });
});
