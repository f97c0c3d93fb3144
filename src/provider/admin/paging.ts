/**
 * Paging by opaque cursor (docs/admin.md "Paging"): a page is the items after the cursor's key
 * in a stable order; the cursor is the last key of a page, encoded so that callers treat it
 * as a token and never build one.
 */
import { InputError } from '../input-error.ts';

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 500;

export interface PageRequest {
  readonly cursor?: string | undefined;
  readonly limit?: number | undefined;
}

export interface Page<T> {
  readonly items: T[];
  /** Undefined on the last page. */
  readonly next: string | undefined;
}

/** The key a cursor names (a cursor we gave; InputError otherwise). */
export function decodeCursor(cursor: string): string {
  let after: unknown;
  try {
    after = (JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { a?: unknown }).a;
  } catch {
    after = undefined;
  }
  if (typeof after !== 'string') throw new InputError('cursor', 'This cursor is not one we gave.');
  return after;
}

/** The cursor naming `key`: opaque to callers. */
export const encodeCursor = (key: string) =>
  Buffer.from(JSON.stringify({ a: key })).toString('base64url');

/** The page of `items` (any order) after the request's cursor, ordered by `keyOf`. */
export function pageOf<T>(
  items: readonly T[],
  keyOf: (item: T) => string,
  request: PageRequest,
): Page<T> {
  const limit = request.limit ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
    throw new InputError('limit', `A page holds 1 to ${MAX_PAGE_SIZE} items.`);
  }
  const after = request.cursor === undefined ? undefined : decodeCursor(request.cursor);
  const sorted = [...items].sort((a, b) =>
    keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0,
  );
  const rest = after === undefined ? sorted : sorted.filter((item) => keyOf(item) > after);
  const page = rest.slice(0, limit);
  const last = page.at(-1);
  return {
    items: page,
    next: rest.length > limit && last !== undefined ? encodeCursor(keyOf(last)) : undefined,
  };
}
