import type { FastifyRequest } from 'fastify';
import { unsupportedParameter } from '../../errors/gateway-error.js';

/**
 * OpenAI's multipart edit form (what the official SDKs send) in the JSON body's shape: each
 * `image` / `image[]` file becomes `images[i].image_url` as a data URL, `n` a number, `models[]`
 * the fallback list. Files are bounded by the multipart limits; other file fields (`mask`) are
 * refused by name.
 */
export async function readEditForm(request: FastifyRequest): Promise<Record<string, unknown>> {
  const body: Record<string, unknown> = {};
  const images: Array<{ image_url: string }> = [];
  const models: string[] = [];
  for await (const part of request.parts()) {
    if (part.type === 'file') {
      if (part.fieldname !== 'image' && part.fieldname !== 'image[]') {
        part.file.resume();
        throw unsupportedParameter(part.fieldname);
      }
      const bytes = await part.toBuffer();
      images.push({ image_url: `data:${part.mimetype || 'application/octet-stream'};base64,${bytes.toString('base64')}` });
      continue;
    }
    const value = String(part.value);
    if (part.fieldname === 'models[]' || part.fieldname === 'models') models.push(value);
    else if (part.fieldname === 'n') body.n = /^\d+$/.test(value) ? Number(value) : value;
    else body[part.fieldname] = value;
  }
  if (images.length > 0) body.images = images;
  if (models.length > 0) body.models = models;
  return body;
}
