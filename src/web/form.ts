/** Reading posted forms and query strings defensively: a missing or repeated field is ''. */

export function field(source: unknown, name: string): string {
  if (typeof source !== 'object' || source === null) return '';
  const value = (source as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : '';
}

/** Every value of a field that may repeat (checkboxes). */
export function fields(source: unknown, name: string): string[] {
  if (typeof source !== 'object' || source === null) return [];
  const value = (source as Record<string, unknown>)[name];
  if (typeof value === 'string') return [value];
  return Array.isArray(value)
    ? value.filter((item): item is string => typeof item === 'string')
    : [];
}

const SITE = 'http://latchkey.invalid';

/** A path on this site as a browser reads a Location: one slash, then not a second or a backslash. */
function isSitePath(path: string): boolean {
  return path.startsWith('/') && !path.startsWith('//') && !path.includes('\\');
}

/**
 * Where to go after signing in: a path on this site only, so the sign-in form can never be
 * used to bounce a person to another site (open redirect). The path returned is the one the
 * URL parser normalized, so that one is checked too: `/.//evil.example`, `/%2e//…` and
 * `/./<TAB>/…` all normalize to `//evil.example…`, a reference to another host. Control
 * characters are refused outright, since parsers drop tabs and newlines where they please.
 */
export function safeNext(next: string): string {
  // eslint-disable-next-line no-control-regex
  if (!isSitePath(next) || /[\u0000-\u001f\u007f]/.test(next)) return '/';
  try {
    const url = new URL(next, SITE);
    const target = `${url.pathname}${url.search}`;
    return url.origin === SITE && isSitePath(target) ? target : '/';
  } catch {
    return '/';
  }
}
