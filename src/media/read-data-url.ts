/**
 * Decodes a `data:` URL (RFC 2397) into bytes and its declared media type, or undefined when it
 * is not one. Only base64 payloads are accepted for binary data.
 */
export function readDataUrl(url: string): { bytes: Buffer; mediaType: string } | undefined {
  if (!url.startsWith('data:')) return undefined;
  const comma = url.indexOf(',');
  if (comma === -1) return undefined;
  const header = url.slice(5, comma).split(';');
  if (header[header.length - 1]?.toLowerCase() !== 'base64') return undefined;
  const payload = url.slice(comma + 1);
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(payload)) return undefined;
  return { bytes: Buffer.from(payload, 'base64'), mediaType: (header[0] || 'text/plain').toLowerCase() };
}
