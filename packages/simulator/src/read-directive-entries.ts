/** A `[[sim:key=value,flag]]` directive anywhere in a prompt. */
export const DIRECTIVE_PATTERN = /\[\[sim:([^\]]*)\]\]/g;

/**
 * The entries of every `[[sim:…]]` directive in a text, in order: a key with its value, or a bare
 * flag with `undefined`. Which keys and values are valid is for the caller to say.
 */
export function readDirectiveEntries(text: string): [key: string, value: string | undefined][] {
  const entries: [string, string | undefined][] = [];
  if (!text.includes('[[sim:')) return entries;
  for (const match of text.matchAll(DIRECTIVE_PATTERN)) {
    for (const entry of match[1].split(',')) {
      const trimmed = entry.trim();
      if (trimmed === '') continue;
      const separator = trimmed.indexOf('=');
      entries.push(separator === -1 ? [trimmed, undefined] : [trimmed.slice(0, separator).trim(), trimmed.slice(separator + 1).trim()]);
    }
  }
  return entries;
}
