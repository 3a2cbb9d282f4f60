/**
 * Hash routing: `#/data?table=public.authors&tab=rows` → {page: 'data', params}. The pages and
 * their paths are the route table, routes.tsx (kept apart: the pages import `navigate` from here).
 */
import { useEffect, useState } from 'react';

export interface Route {
  readonly page: string;
  readonly params: URLSearchParams;
}

function parse(hash: string): Route {
  const body = hash.replace(/^#\/?/, '');
  const q = body.indexOf('?');
  return { page: (q === -1 ? body : body.slice(0, q)) || 'api', params: new URLSearchParams(q === -1 ? '' : body.slice(q + 1)) };
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parse(location.hash));
  useEffect(() => {
    const on = () => setRoute(parse(location.hash));
    window.addEventListener('hashchange', on);
    return () => window.removeEventListener('hashchange', on);
  }, []);
  return route;
}

/** Sets the hash's parameters for the current page (a new history entry). */
export function navigate(page: string, params: Record<string, string> = {}): void {
  const q = new URLSearchParams(params).toString();
  location.hash = `#/${page}${q === '' ? '' : `?${q}`}`;
}
