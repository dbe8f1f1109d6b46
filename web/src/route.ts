import { useEffect, useState } from 'preact/hooks';

/**
 * Where the page is, in the URL's fragment: `#/requests/req_…?model=…` is view `requests`, item
 * `req_…`, parameters `model=…`. The fragment never reaches the server (the key stays in
 * sessionStorage, never here), so the one page at `/` serves every view; a reload keeps the view
 * and Back walks the browser's history through them.
 */
export interface Route {
  view: string;
  id?: string;
  params: Record<string, string>;
}

export function parseRoute(hash: string): Route {
  const [path, search = ''] = hash.replace(/^#/, '').split('?', 2);
  const [view = '', id] = path.split('/').filter(Boolean).map(decodeURIComponent);
  return { view, ...(id && { id }), params: Object.fromEntries(new URLSearchParams(search)) };
}

export function routeHref(route: Route): string {
  const params = new URLSearchParams(Object.entries(route.params).filter(([, value]) => value !== ''));
  const search = params.toString();
  return `#/${encodeURIComponent(route.view)}${route.id ? `/${encodeURIComponent(route.id)}` : ''}${search ? `?${search}` : ''}`;
}

/** A new history entry (Back returns), or, with `replace`, the current one rewritten (a default view filled in). */
export function navigate(route: Route, options: { replace?: boolean } = {}): void {
  const href = routeHref(route);
  if (href === location.hash) return;
  if (options.replace) {
    history.replaceState(history.state, '', href);
    window.dispatchEvent(new HashChangeEvent('hashchange'));
  } else {
    location.hash = href;
  }
}

/** The current route, following Back, Forward and links. */
export function useRoute(): Route {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const follow = () => setHash(location.hash);
    window.addEventListener('hashchange', follow);
    return () => window.removeEventListener('hashchange', follow);
  }, []);
  return parseRoute(hash);
}
