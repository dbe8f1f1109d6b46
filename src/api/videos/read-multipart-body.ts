import { invalidRequest } from '../../errors/gateway-error.js';

/**
 * OpenAI's SDK sends `videos.create` as multipart/form-data (its reference image is a file
 * upload). The form becomes the JSON body's fields: text fields as strings (`seconds` is a
 * numeric string, which the body allows), the `input_reference` file as a data: URL in
 * `image_url`, and `input_reference[image_url]` as `image_url`. Anything else keeps its name, so
 * that the body schema refuses it by name. Parsed with the platform's own multipart reader.
 */
export async function readMultipartBody(payload: Buffer, contentType: string): Promise<Record<string, unknown>> {
  let form: FormData;
  try {
    form = await new Response(payload, { headers: { 'content-type': contentType } }).formData();
  } catch {
    throw invalidRequest('The multipart/form-data body could not be read');
  }
  const body: Record<string, unknown> = {};
  for (const [name, value] of form.entries()) {
    if (name in body || (name === 'input_reference' && 'image_url' in body)) throw invalidRequest(`'${name}' was given more than once`, name);
    if (typeof value !== 'string') {
      if (name !== 'input_reference') {
        body[name] = '[file]';
        continue;
      }
      const bytes = Buffer.from(await value.arrayBuffer());
      body.image_url = `data:${value.type || 'application/octet-stream'};base64,${bytes.toString('base64')}`;
    } else if (name === 'input_reference[image_url]') {
      body.image_url = value;
    } else if (name.startsWith('input_reference[')) {
      body[`input_reference.${name.slice('input_reference['.length, -1)}`] = value;
    } else {
      body[name] = value;
    }
  }
  return body;
}
