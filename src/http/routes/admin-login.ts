/**
 * The login challenge admin API (docs/identity.md), for the team's own login app, as ORY
 * Hydra's: the app signs the person in its own way, then
 *   POST /admin/login/accept  {"login_challenge", "subject", "name"} → {"redirect_to"}
 *   POST /admin/login/reject  {"login_challenge"}                    → {"redirect_to"}
 * with `Authorization: Bearer <admin token>`, and sends the browser to `redirect_to`. The token
 * is compared in constant time. Refusals are JSON `{error, error_description}` with a status
 * that says why: 401 wrong token, 400 unreadable body, 404 unknown challenge, 409 already
 * answered, 410 expired, 415 not JSON.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { InputError, LoginRefusedError } from '../../provider/index.ts';
import type { LoginRefusal, Provider } from '../../provider/index.ts';
import { StoreUnavailableError } from '../../provider/index.ts';

export interface LoginAdminOptions {
  readonly provider: Provider;
  readonly adminToken: string;
  /**
   * The base URL `redirect_to` is built on: the public URL when configured, else the origin
   * the login app itself called (never a value a browser chose).
   */
  readonly baseUrlOf: (request: FastifyRequest) => string;
  /** Where the browser completes an accepted sign-in (`?login_verifier=…` is added). */
  readonly callbackPath: string;
  /** Where the browser is told a sign-in without an authorization request was refused. */
  readonly refusedPath: string;
  /** The authorization page, shown for a refused request without a callback (oob). */
  readonly authorizePath: string;
}

const refusalStatus: Record<LoginRefusal, readonly [number, string]> = {
  unknown: [404, 'not_found'],
  'other-browser': [404, 'not_found'],
  answered: [409, 'conflict'],
  expired: [410, 'gone'],
};

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

class AdminRefusal extends Error {
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

function bodyOf(request: FastifyRequest): Record<string, unknown> {
  if (!/^application\/json\s*(;|$)/i.test(request.headers['content-type'] ?? '')) {
    throw new AdminRefusal(415, 'invalid_request', 'The body must be JSON (application/json).');
  }
  const body = request.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new AdminRefusal(400, 'invalid_request', 'The body must be a JSON object.');
  }
  const record = body as Record<string, unknown>;
  if (typeof record['login_challenge'] !== 'string' || record['login_challenge'] === '') {
    throw new AdminRefusal(400, 'invalid_request', 'login_challenge is required (a string).');
  }
  return record;
}

export async function registerLoginAdmin(
  app: FastifyInstance,
  options: LoginAdminOptions,
): Promise<void> {
  const expected = digest(options.adminToken);
  const { provider } = options;

  await app.register(async function loginAdmin(admin) {
    admin.setErrorHandler(async function adminError(error, request, reply: FastifyReply) {
      let refusal: AdminRefusal;
      if (error instanceof AdminRefusal) refusal = error;
      else if (error instanceof LoginRefusedError) {
        const [status, code] = refusalStatus[error.reason];
        refusal = new AdminRefusal(status, code, error.message);
      } else if (error instanceof InputError) {
        refusal = new AdminRefusal(400, 'invalid_request', error.message);
      } else if (error instanceof StoreUnavailableError) {
        reply.header('retry-after', '5');
        refusal = new AdminRefusal(503, 'temporarily_unavailable', 'The store is unavailable.');
      } else {
        const status = (error as { statusCode?: number }).statusCode ?? 500;
        if (status >= 500) request.log.error({ err: error }, 'admin API failed');
        refusal =
          status >= 500
            ? new AdminRefusal(500, 'server_error', 'The request could not be completed.')
            : new AdminRefusal(status, 'invalid_request', 'The request could not be read.');
      }
      if (refusal.status === 401) {
        reply.header('www-authenticate', 'Bearer realm="latchkey-admin", error="invalid_token"');
      }
      return reply
        .code(refusal.status)
        .header('cache-control', 'no-store')
        .send({ error: refusal.code, error_description: refusal.message });
    });

    admin.addHook('onRequest', async function checkAdminToken(request) {
      const header = request.headers.authorization ?? '';
      const match = /^Bearer +(\S+)\s*$/i.exec(header);
      // Digests of equal length, so the comparison takes the same time whatever was sent.
      if (match?.[1] === undefined || !timingSafeEqual(digest(match[1]), expected)) {
        throw new AdminRefusal(401, 'invalid_token', 'A valid admin token is required.');
      }
    });

    admin.post('/admin/login/accept', { bodyLimit: 16 * 1024 }, async (request, reply) => {
      const body = bodyOf(request);
      if (typeof body['subject'] !== 'string') {
        throw new AdminRefusal(400, 'invalid_request', 'subject is required (a string).');
      }
      if (body['name'] !== undefined && body['name'] !== null && typeof body['name'] !== 'string') {
        throw new AdminRefusal(400, 'invalid_request', 'name must be a string.');
      }
      const { verifier } = await provider.logins.accept(body['login_challenge'], {
        subject: body['subject'],
        name: body['name'],
      });
      const url = new URL(`${options.baseUrlOf(request)}${options.callbackPath}`);
      url.searchParams.set('login_verifier', verifier);
      return reply.header('cache-control', 'no-store').send({ redirect_to: url.href });
    });

    admin.post('/admin/login/reject', { bodyLimit: 16 * 1024 }, async (request, reply) => {
      const body = bodyOf(request);
      const { redirect, challenge } = await provider.logins.reject(body['login_challenge']);
      const base = options.baseUrlOf(request);
      const redirectTo =
        redirect ??
        (challenge.oauthToken === null
          ? `${base}${options.refusedPath}`
          : `${base}${options.authorizePath}?oauth_token=${encodeURIComponent(challenge.oauthToken)}`);
      return reply.header('cache-control', 'no-store').send({ redirect_to: redirectTo });
    });
  });
}
