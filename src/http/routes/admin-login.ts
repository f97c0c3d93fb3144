/**
 * The login challenge admin API (docs/identity.md), for the team's own login app, as ORY
 * Hydra's: the app signs the person in its own way, then
 *   POST /admin/login/accept  {"login_challenge", "subject", "name"} → {"redirect_to"}
 *   POST /admin/login/reject  {"login_challenge"}                    → {"redirect_to"}
 * with `Authorization: Bearer <admin token>`, and sends the browser to `redirect_to`. The token
 * is compared in constant time. The bodies are checked by the routes' schemas (which are also
 * their description in /openapi.json). Refusals are JSON `{error, error_description}` with a status
 * that says why: 401 wrong token, 400 unreadable body, 404 unknown challenge, 409 already
 * answered, 410 expired, 415 not JSON.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { InputError, LoginRefusedError } from '../../provider/index.ts';
import type { LoginRefusal, Provider } from '../../provider/index.ts';
import { ADMIN, bare, TAGS } from '../route-schemas.ts';
import { BearerRefusal, guardBearerService, refusal } from '../bearer-service.ts';

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

const challenge = {
  type: 'string',
  minLength: 1,
  description: 'The `login_challenge` your login app received.',
} as const;

const redirectTo = {
  description: 'Where to send the browser now.',
  content: {
    'application/json': {
      schema: {
        type: 'object',
        properties: { redirect_to: { type: 'string', format: 'uri' } },
        required: ['redirect_to'],
      },
    },
  },
};

const refusals = {
  400: refusal('The body is not a JSON object with the fields required (invalid_request).'),
  401: bare('No valid admin token (invalid_token); `WWW-Authenticate: Bearer`.'),
  404: refusal('No such challenge, or not this browser’s (not_found).'),
  409: refusal('Already accepted or rejected (conflict).'),
  410: refusal('Expired (gone).'),
  415: refusal('The body is not application/json (invalid_request).'),
  503: refusal('The store is unavailable (temporarily_unavailable); Retry-After.'),
};

const acceptSchema = {
  tags: [TAGS.admin],
  summary: 'Accept a delegated sign-in',
  description:
    'Your login app signed the person in: Latchkey signs them in as the owner with this subject (created on first use) and answers where to send the browser.',
  security: ADMIN,
  body: {
    type: 'object',
    properties: {
      login_challenge: challenge,
      subject: {
        type: 'string',
        description:
          'The stable id of the person in your user base (visible ASCII, up to 255 bytes).',
      },
      name: { type: ['string', 'null'], description: 'The display name (default: the subject).' },
    },
    required: ['login_challenge', 'subject'],
  },
  response: { 200: redirectTo, ...refusals },
};

const rejectSchema = {
  tags: [TAGS.admin],
  summary: 'Reject a delegated sign-in',
  description:
    'The person could not be signed in: the authorization request is denied, and the answer says where to send the browser.',
  security: ADMIN,
  body: {
    type: 'object',
    properties: { login_challenge: challenge },
    required: ['login_challenge'],
  },
  response: { 200: redirectTo, ...refusals },
};

/** Read once the schema checked it. */
interface AcceptBody {
  readonly login_challenge: string;
  readonly subject: string;
  readonly name?: string | null;
}

export async function registerLoginAdmin(
  app: FastifyInstance,
  options: LoginAdminOptions,
): Promise<void> {
  const { provider } = options;

  await app.register(async function loginAdmin(admin) {
    guardBearerService(admin, {
      token: options.adminToken,
      realm: 'latchkey-admin',
      credential: 'admin token',
      name: 'admin API',
      refusalOf: (error) => {
        if (error instanceof LoginRefusedError) {
          const [status, code] = refusalStatus[error.reason];
          return new BearerRefusal(status, code, error.message);
        }
        if (error instanceof InputError)
          return new BearerRefusal(400, 'invalid_request', error.message);
        return undefined;
      },
    });

    // Before the schema: a form body would parse into an object as well.
    admin.addHook('preValidation', async function requireJson(request) {
      if (!/^application\/json\s*(;|$)/i.test(request.headers['content-type'] ?? '')) {
        throw new BearerRefusal(
          415,
          'invalid_request',
          'The body must be JSON (application/json).',
        );
      }
    });

    const limits = { bodyLimit: 16 * 1024 };
    admin.post(
      '/admin/login/accept',
      { ...limits, schema: acceptSchema },
      async (request, reply) => {
        const body = request.body as AcceptBody;
        const { verifier } = await provider.logins.accept(body.login_challenge, {
          subject: body.subject,
          name: body.name,
        });
        const url = new URL(`${options.baseUrlOf(request)}${options.callbackPath}`);
        url.searchParams.set('login_verifier', verifier);
        return reply.header('cache-control', 'no-store').send({ redirect_to: url.href });
      },
    );

    admin.post(
      '/admin/login/reject',
      { ...limits, schema: rejectSchema },
      async (request, reply) => {
        const body = request.body as Pick<AcceptBody, 'login_challenge'>;
        const { redirect, challenge } = await provider.logins.reject(body.login_challenge);
        const base = options.baseUrlOf(request);
        const redirectTo =
          redirect ??
          (challenge.oauthToken === null
            ? `${base}${options.refusedPath}`
            : `${base}${options.authorizePath}?oauth_token=${encodeURIComponent(challenge.oauthToken)}`);
        return reply.header('cache-control', 'no-store').send({ redirect_to: redirectTo });
      },
    );
  });
}
