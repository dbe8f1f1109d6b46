/** A percent-decoded path segment; a malformed escape decodes to '' (which no route accepts). */
export function decodePathSegment(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return '';
  }
}
