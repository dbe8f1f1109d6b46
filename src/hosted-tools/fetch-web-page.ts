import { fetchPublicUrl, type FetchPublicUrlOptions } from '../outbound/fetch-public-url.js';
import type { CancelSignal } from '../core/cancel-signal.js';

export interface FetchedPage {
  url: string;
  title?: string;
  /** The page as plain text (HTML tags, scripts and styles removed), cut at the byte limit. */
  text: string;
  contentType: string;
}

/**
 * The gateway-run web fetch: the page at a URL the model names, under the same rules as a
 * client's image URL (https only, public addresses only, every redirect checked again, bounded
 * size and time; see http/fetch-public-url.ts). Throws `FetchRefusedError` with a message safe to
 * hand to the model.
 */
export async function fetchWebPage(
  url: string,
  options: { maxBytes: number; timeoutMs: number; signal: CancelSignal } & Pick<FetchPublicUrlOptions, 'resolve' | 'isAllowedAddress' | 'ca'>,
): Promise<FetchedPage> {
  const fetched = await fetchPublicUrl(url, { ...options, contentTypes: ['text/', 'application/json', 'application/xhtml+xml'] });
  const raw = fetched.bytes.toString('utf8');
  if (!fetched.contentType.includes('html')) return { url: fetched.url, text: raw, contentType: fetched.contentType };
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(raw)?.[1]?.trim();
  return { url: fetched.url, ...(title && { title: decodeEntities(title) }), text: htmlToText(raw), contentType: fetched.contentType };
}

function htmlToText(html: string): string {
  return decodeEntities(
    html
      .replace(/<(script|style|noscript|template)[\s\S]*?<\/\1>/gi, ' ')
      .replace(/<(br|\/p|\/div|\/li|\/h[1-6]|\/tr)\b[^>]*>/gi, '\n')
      .replace(/<[^>]+>/g, ' '),
  )
    .replace(/[ \t\f\v]+/g, ' ')
    .replace(/\s*\n\s*/g, '\n')
    .trim();
}

const entities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (match, name: string) => {
    if (name[0] === '#') {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : match;
    }
    return entities[name.toLowerCase()] ?? match;
  });
}
