/**
 * Hash routing (`#/products/<uuid>/compliance?page=2`): the console is static files, so any path works
 * from S3 and from `npm start` without rewrite rules, and nothing of the route reaches a server log.
 */
import { useEffect, useState } from 'preact/hooks';

export interface Route {
  readonly segments: readonly string[];
  readonly query: URLSearchParams;
}

export function parseHash(hash: string): Route {
  const text = hash.replace(/^#\/?/, '');
  const [path = '', search = ''] = text.split('?', 2);
  return { segments: path.split('/').filter(Boolean).map(decodeSegment), query: new URLSearchParams(search) };
}

/** A segment with a broken escape (`%E0`) stays as typed: it names no page, and the Not found page says so. */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export function href(segments: readonly string[], query: Readonly<Record<string, string | number | undefined>> = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== '') params.set(name, String(value));
  const search = params.toString();
  return `#/${segments.map(encodeURIComponent).join('/')}${search ? `?${search}` : ''}`;
}

export function navigate(segments: readonly string[], query: Readonly<Record<string, string | number | undefined>> = {}): void {
  location.hash = href(segments, query);
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseHash(location.hash));
  useEffect(() => {
    const update = () => setRoute(parseHash(location.hash));
    window.addEventListener('hashchange', update);
    return () => window.removeEventListener('hashchange', update);
  }, []);
  return route;
}
