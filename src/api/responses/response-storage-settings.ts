import type { AppContext } from '../../app-context.js';
import { defaultResponseStorage } from '../../config/default-response-storage.js';
import type { ResponseStorageConfig } from '../../config/types.js';

/** The stored-response settings, with defaults for a config built without them. */
export function responseStorageOf(context: Pick<AppContext, 'config'>): Required<ResponseStorageConfig> {
  return { ...defaultResponseStorage, ...context.config.server.responses };
}
