import type { ComponentChildren } from 'preact';
import { useEffect } from 'preact/hooks';
import type { Tab } from '../role-tabs.js';
import { navigate, routeHref, useRoute, type Route } from '../route.js';

export type { Tab } from '../role-tabs.js';

/**
 * Header, navigation and the current view; the navigation wraps on a phone-width screen. Each
 * section is a link to its own URL (`#/usage`), so it can be reloaded, bookmarked and left with Back.
 */
export function Shell(props: { title: string; subtitle: string; tabs: Tab[]; current: string; onSignOut: () => void; toolbar?: ComponentChildren; children: ComponentChildren }) {
  return (
    <div class="shell">
      <header>
        <div>
          <h1>{props.title}</h1>
          <p class="muted">{props.subtitle}</p>
        </div>
        <div class="header-actions">
          {props.toolbar}
          <button type="button" class="secondary" onClick={props.onSignOut}>
            Sign out
          </button>
        </div>
      </header>
      <nav aria-label="Sections">
        {props.tabs.map((tab) => (
          <a key={tab.id} href={routeHref({ view: tab.id, params: {} })} aria-current={tab.id === props.current ? 'page' : undefined}>
            {tab.label}
          </a>
        ))}
      </nav>
      <main>{props.children}</main>
    </div>
  );
}

/**
 * The route, and the view it names when the signed-in key may see it, else the first tab; a URL
 * that named another (or none) is rewritten in place, so Back does not return to it.
 */
export function useCurrentView(tabs: Tab[]): { route: Route; current: string } {
  const route = useRoute();
  const current = tabs.some((tab) => tab.id === route.view) ? route.view : tabs[0].id;
  useEffect(() => {
    if (route.view !== current) navigate({ view: current, params: {} }, { replace: true });
  }, [route.view, current]);
  return { route, current };
}
