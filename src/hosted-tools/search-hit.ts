/** One web search result, whichever backend found it: what the model reads and the client's citations show. */
export interface SearchHit {
  url: string;
  title: string;
  /** The backend's excerpt of the page (SearXNG `content`, Brave `description`, Tavily `content`, Exa `text`). */
  snippet: string;
  /** When the page was published, as the backend words it (Brave `page_age`, Exa `publishedDate`). */
  pageAge?: string;
}

/** A search the backend could not answer (status, timeout, unreadable body): told to the model, never charged. */
export class SearchFailedError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SearchFailedError';
  }
}

export interface SearchCall {
  query: string;
  maxResults: number;
  signal: AbortSignal;
}

/** Reads a string field leniently: a backend that leaves it out or sends another type gives ''. */
export function textOf(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** Results without a URL cannot be cited, so they are not offered to the model. */
export function keepCitable(hits: SearchHit[], maxResults: number): SearchHit[] {
  return hits.filter((hit) => /^https?:\/\//.test(hit.url)).slice(0, maxResults);
}
