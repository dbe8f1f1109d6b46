import type { AppContext } from '../app-context.js';
import { defaultMediaConfig } from '../config/default-media-config.js';
import type { MediaConfig } from '../config/types.js';

/** The `media:` settings, with defaults for a config built without that section. */
export function mediaSettingsOf(context: Pick<AppContext, 'config'>): MediaConfig {
  return context.config.media ?? defaultMediaConfig;
}
