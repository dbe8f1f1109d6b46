import { isProviderApi, type ProviderApi } from './protocol-descriptor.js';

/**
 * The tag a reasoning signature carries out of the gateway: the protocol that issued it, then the
 * provider's own signature (`generation/tag-signatures.ts` says why). Written here, below the
 * layers that tag (generation), read tags back (the styles, generation) and plan a protocol's
 * pass-through (providers), so that all of them spell it one way.
 */
const separator = ':';

export function tagSignature(api: ProviderApi, signature: string): string {
  return `${api}${separator}${signature}`;
}

/** The protocol a signature was tagged with and the provider's own signature; undefined when untagged. */
export function readSignatureTag(signature: string): { api: ProviderApi; signature: string } | undefined {
  const at = signature.indexOf(separator);
  const tag = at > 0 ? signature.slice(0, at) : undefined;
  if (tag === undefined || !isProviderApi(tag)) return undefined;
  return { api: tag, signature: signature.slice(at + 1) };
}
