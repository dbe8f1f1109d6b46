import { simulatorAwsCredentials, type Simulator } from '@switchyard/simulator';
import type { ProviderConfig } from '../../src/config/types.js';
import type { CallContext } from '../../src/providers/provider-adapter.js';
import { createProviderDispatcher } from '../../src/providers/shared/send-request.js';

/**
 * A Bedrock provider at the simulator's `/bedrock` base, holding a Bedrock API key (bearer) or the
 * simulator's long-term AWS keys (SigV4), and a call context for one of its models; `close()`
 * ends the connection pool.
 */
export function bedrockCallContext(simulator: Simulator, auth: 'api-key' | 'sigv4', providerModel: string): CallContext & { close(): Promise<void> } {
  const provider: ProviderConfig = {
    id: `bedrock-${auth}`,
    name: 'Bedrock',
    api: 'bedrock',
    baseUrl: `${simulator.url}/bedrock`,
    auth:
      auth === 'api-key'
        ? { kind: 'bearer', token: 'sim-key' }
        : { kind: 'aws-sigv4', accessKeyId: simulatorAwsCredentials.accessKeyId, secretAccessKey: simulatorAwsCredentials.secretAccessKey, region: 'us-east-1', service: 'bedrock' },
    enabled: true,
    headers: {},
    timeouts: { connectMs: 2000, firstByteMs: 5000, idleMs: 5000 },
  };
  const dispatcher = createProviderDispatcher(provider);
  return { provider, providerModel, signal: new AbortController().signal, dispatcher, close: () => dispatcher.close() };
}
