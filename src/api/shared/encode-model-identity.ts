import type { ModelConfig } from '../../config/types.js';

/** The fields a media or video model listing opens with, in this order. */
export function encodeModelIdentity(model: ModelConfig): Pick<ModelConfig, 'id' | 'name' | 'description' | 'created' | 'free'> {
  return { id: model.id, name: model.name, description: model.description, created: model.created, free: model.free };
}
