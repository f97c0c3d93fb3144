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

/**
 * Where to go after signing in: a path on this site only, so the sign-in form can never be
 * used to bounce a person to another site (open redirect).
 */
export function safeNext(next: string): string {
  if (!next.startsWith('/') || next.startsWith('//') || next.includes('\\')) return '/';
  try {
    const url = new URL(next, 'http://latchkey.invalid');
    return url.origin === 'http://latchkey.invalid' ? `${url.pathname}${url.search}` : '/';
  } catch {
    return '/';
  }
}
