import type { Logger } from 'pino';
import type { ProviderConfig, TextProviderApi } from '../config/types.js';
import type { TextProviderAdapter } from './provider-adapter.js';
import { textAdapters } from './protocols.js';
import { createProviderDispatcher, type ProviderDispatcher } from './shared/send-request.js';

/**
 * The adapters by wire protocol, and one keep-alive connection pool per configured provider
 * (created on first use). Only configured provider URLs are ever called.
 */
export class ProviderRegistry {
  private readonly dispatchers = new Map<string, ProviderDispatcher>();

  /** The logger is told when a provider's connections and line fill up (once per episode). */
  constructor(private readonly logger?: Pick<Logger, 'warn' | 'info'>) {}

  /** The text adapter of a protocol; config validation guarantees text models use one that has it. */
  textAdapter(api: ProviderConfig['api']): TextProviderAdapter {
    const adapter = textAdapters[api as TextProviderApi];
    if (!adapter) throw new Error(`provider protocol ${api} cannot serve text`);
    return adapter;
  }

  dispatcher(provider: ProviderConfig): ProviderDispatcher {
    let dispatcher = this.dispatchers.get(provider.id);
    if (!dispatcher) {
      dispatcher = createProviderDispatcher(provider, this.logger);
      this.dispatchers.set(provider.id, dispatcher);
    }
    return dispatcher;
  }

  /** Calls open and waiting per provider that has been called (for `/metrics`). */
  connectionStats(): Array<{ provider: string; inUse: number; queued: number }> {
    return [...this.dispatchers].map(([provider, dispatcher]) => ({ provider, inUse: dispatcher.slots.inUse, queued: dispatcher.slots.queued }));
  }

  async close(): Promise<void> {
    await Promise.all([...this.dispatchers.values()].map((dispatcher) => dispatcher.close()));
    this.dispatchers.clear();
  }
}
