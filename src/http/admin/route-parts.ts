/**
 * What the admin routes share: the security scheme and problem answers of their schemas, the
 * page query and answer, and the entity tags (RFC 9110 §8.8.3, §13.1.1) that make an update
 * conditional: `ETag` on every GET of one object, `If-Match` checked on every change to one
 * (412 when it no longer matches), and required on PATCH (428 without it, RFC 6585 §3), so
 * that two admins editing one client cannot silently overwrite each other.
 */
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { MAX_PAGE_SIZE } from '../../provider/index.ts';
import { TAGS } from '../route-schemas.ts';
import type { AdminRouteConfig } from './guard.ts';
import { AdminProblem, problemAnswer } from './problem.ts';

/** `Authorization: Bearer <admin token>` (latchkey admin-tokens add). */
export const ADMIN_API = [{ adminApiToken: [] }];

/** A route's options naming the role action it needs (guard.ts checks it before the handler). */
export const actionConfig = (action: AdminRouteConfig['action']) => ({ config: { action } });

const refusalText: Record<number, string> = {
  400: 'The input is not acceptable; `field` names it.',
  401: 'No admin token, or an unknown, expired or revoked one; `WWW-Authenticate: Bearer`.',
  403: 'The token’s role may not do this.',
  404: 'No such object.',
  412: 'If-Match does not match the object’s current ETag: it changed since it was read.',
  413: 'The body is larger than the admin API reads.',
  414: 'A path parameter is longer than any key, id or token.',
  415: 'The body is not application/json.',
  428: 'If-Match is required: read the object first and send its ETag.',
  429: 'Too many wrong admin tokens from this address; Retry-After.',
  503: 'The store is unavailable; nothing was done; Retry-After.',
};

/** The problems a route may answer: always 401, 403, 429 and 503, plus `more`. */
export function problems(...more: number[]) {
  return Object.fromEntries(
    [...new Set([401, 403, 429, 503, ...more])].map((status) => [
      status,
      problemAnswer(refusalText[status] ?? 'A problem.'),
    ]),
  );
}

/**
 * The problems every route of its kind may answer whatever it does, added to its schema as it
 * is registered: a path parameter too long to read (414), and for a method with a body, one
 * too large or not JSON (413, 415).
 */
export function completeProblems(route: {
  readonly url: string;
  readonly method: string | string[];
  readonly schema?: { response?: unknown } | undefined;
}): void {
  const response = route.schema?.response as Record<string, unknown> | undefined;
  if (response === undefined) return;
  const methods = [route.method].flat();
  const statuses = [
    ...(route.url.includes(':') ? [414] : []),
    ...(methods.some((m) => m !== 'GET' && m !== 'HEAD') ? [413, 415] : []),
  ];
  for (const status of statuses) {
    response[status] ??= problemAnswer(refusalText[status]!);
  }
}

/** An admin operation's schema: tag, security, and the parts given. */
export function operation(summary: string, description: string, parts: Record<string, unknown>) {
  return { tags: [TAGS.admin], summary, description, security: ADMIN_API, ...parts };
}

export const json = (description: string, schema: object, headers?: Record<string, object>) => ({
  description,
  content: { 'application/json': { schema } },
  ...(headers === undefined ? {} : { headers }),
});

/** The schema of one path parameter naming an object (`/admin/clients/{key}`). */
export function pathParams<Name extends string>(name: Name) {
  return {
    type: 'object',
    properties: { [name]: { type: 'string', minLength: 1, maxLength: 200 } },
    required: [name],
  } as const;
}

export const etagHeader = { etag: { type: 'string', description: 'The object’s entity tag.' } };

/** Query fields of a paged listing. */
export const pageQuery = {
  cursor: { type: 'string', maxLength: 1000, description: 'The `next` of the previous page.' },
  limit: {
    type: 'string',
    pattern: '^[0-9]{1,4}$',
    description: `Items per page, 1 to ${MAX_PAGE_SIZE} (default 50).`,
  },
} as const;

export function pageAnswer(items: object) {
  return {
    type: 'object',
    properties: {
      items: { type: 'array', items },
      next: {
        type: ['string', 'null'],
        description: 'The cursor of the next page; null on the last.',
      },
    },
    required: ['items', 'next'],
  };
}

/** The page request of a listing's query. */
export function pageRequestOf(query: { cursor?: string; limit?: string }) {
  return {
    cursor: query.cursor,
    limit: query.limit === undefined ? undefined : Number(query.limit),
  };
}

/** A strong entity tag over what the API shows of the object. */
export function etagOf(view: object): string {
  return `"${createHash('sha256').update(JSON.stringify(view)).digest('base64url').slice(0, 27)}"`;
}

/**
 * Throws 412 when `If-Match` is sent and does not name the current tag (`*` matches any), and
 * 428 when it is required and absent.
 */
export function checkIfMatch(request: FastifyRequest, view: object, required: boolean): void {
  const header = request.headers['if-match'];
  if (header === undefined || header === '') {
    if (required) throw new AdminProblem(428, 'Send If-Match with the ETag of the object read.');
    return;
  }
  const current = etagOf(view);
  const tags = header.split(',').map((tag) => tag.trim());
  if (!tags.includes('*') && !tags.includes(current)) {
    throw new AdminProblem(412, 'The object changed since it was read: read it again.');
  }
}

/** Sends `view` with its ETag (the admin scope marks every answer `no-store`, index.ts). */
export function sendWithEtag(reply: FastifyReply, view: object, status = 200) {
  return reply.code(status).header('etag', etagOf(view)).send(view);
}
