/**
 * Hash routing (`#/products/<uuid>/compliance?page=2`): the console is static files, so any path works
 * from S3 and from `npm start` without rewrite rules, and nothing of the route reaches a server log.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';

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

/**
 * The route of the address, kept current. The listener is added by an effect, which runs after the first
 * paint: an address changed between the first render and then (a link followed, or a script setting
 * location.hash, as soon as the page shows) fires its hashchange before anyone listens. So the effect
 * reads the address again once it listens; without that, the page stayed on the old route for good
 * (a browser test going to #/portfolio right after sign-in waited on the Products page until it timed out).
 */
export function useRoute(): Route {
  const [hash, setHash] = useState(() => location.hash);
  useEffect(() => {
    const update = () => setHash(location.hash);
    window.addEventListener('hashchange', update);
    update();
    return () => window.removeEventListener('hashchange', update);
  }, []);
  return useMemo(() => parseHash(hash), [hash]);
}
