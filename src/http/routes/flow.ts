/**
 * The two signed flow endpoints (§2.1 temporary credentials, §2.3 token credentials),
 * answered as the spec says: 200, application/x-www-form-urlencoded, and the client's own
 * end of a token (`POST /oauth/invalidate_token`, provider/flow/invalidation.ts), answered alike. They need TLS or an
 * equivalent channel (§2.1, §2.3): the provider refuses them otherwise (403 https_required,
 * provider/verify/check-channel.ts), on the channel incoming-request.ts finds.
 */
import type { FastifyInstance } from 'fastify';
import { percentEncode } from '../../protocol/index.ts';
import type { Provider } from '../../provider/index.ts';
import { toIncomingRequest } from '../incoming-request.ts';
import type { TransportSettings } from '../incoming-request.ts';
import type { FlowPaths } from '../options.ts';
import { formAnswer, SIGNED, signedRequestRefusals, TAGS } from '../route-schemas.ts';

// §2.1 and §2.3 say POST "unless the server recommends another method"; GET is accepted
// too, because older clients send it, and the signature covers the method either way.
const FLOW_METHODS = ['POST', 'GET'] as const;

function formReply(fields: Record<string, string>): string {
  return Object.entries(fields)
    .map(([name, value]) => `${name}=${percentEncode(value)}`)
    .join('&');
}

const credential = { type: 'string', minLength: 1 } as const;
const seconds = { type: 'string', pattern: '^[0-9]+$' } as const;

const temporarySchema = {
  tags: [TAGS.flow],
  summary: 'Temporary credentials (RFC 5849 §2.1)',
  description:
    'Signed by the client alone, with `oauth_callback` (an absolute URI, or `oob`). Needs HTTPS (or loopback). GET is accepted for older clients.',
  security: SIGNED,
  response: {
    200: formAnswer(
      'Temporary credentials for the authorization step.',
      {
        oauth_token: credential,
        oauth_token_secret: credential,
        oauth_callback_confirmed: { const: 'true' },
      },
      ['oauth_token', 'oauth_token_secret', 'oauth_callback_confirmed'],
    ),
    ...signedRequestRefusals,
  },
};

const tokenSchema = {
  tags: [TAGS.flow],
  summary: 'Token credentials (RFC 5849 §2.3), and their renewal (session extension)',
  description:
    "Signed with the authorized temporary credentials and `oauth_verifier`. A client registered for the session extension also gets `oauth_expires_in`, `oauth_session_handle` and `oauth_authorization_expires_in`, and renews a token credential (expired or live) by signing with it and sending `oauth_session_handle` instead of a verifier: a new token and secret, the old ones dead at once. A client registered with `tokenResponseIdentity` also gets `user_id` (the owner's subject) and `screen_name` (the owner's display name). Needs HTTPS (or loopback).",
  security: SIGNED,
  response: {
    200: formAnswer(
      'Token credentials; the session fields only for a client with the session extension, `user_id` and `screen_name` only for one with `tokenResponseIdentity`.',
      {
        oauth_token: credential,
        oauth_token_secret: credential,
        oauth_expires_in: seconds,
        oauth_session_handle: credential,
        oauth_authorization_expires_in: seconds,
        user_id: { type: 'string' },
        screen_name: { type: 'string' },
      },
      ['oauth_token', 'oauth_token_secret'],
    ),
    ...signedRequestRefusals,
  },
};

const invalidateSchema = {
  tags: [TAGS.flow],
  summary: 'End the token the request is signed with',
  description:
    "Invalidation by the client: a request signed with a token credential ends that token (as the owner's revocation does, on every instance). 200 once; then 401 `token_revoked`.",
  security: SIGNED,
  response: {
    200: formAnswer('The token is revoked.', { oauth_token: credential }, ['oauth_token']),
    ...signedRequestRefusals,
  },
};

export function registerFlowRoutes(
  app: FastifyInstance,
  provider: Provider,
  paths: FlowPaths,
  transport: TransportSettings,
): void {
  app.route({
    method: [...FLOW_METHODS],
    url: paths.requestToken,
    schema: temporarySchema,
    handler: async function requestTemporaryCredentials(request, reply) {
      const issued = await provider.issueTemporaryCredentials(
        toIncomingRequest(request, transport),
      );
      return reply
        .header('content-type', 'application/x-www-form-urlencoded')
        .header('cache-control', 'no-store')
        .send(
          formReply({
            oauth_token: issued.token,
            oauth_token_secret: issued.secret,
            oauth_callback_confirmed: 'true',
          }),
        );
    },
  });

  app.route({
    method: [...FLOW_METHODS],
    url: paths.accessToken,
    schema: tokenSchema,
    handler: async function requestTokenCredentials(request, reply) {
      // A renewal (session extension) is recorded with the client's address (the audit trail).
      const issued = await provider.audit.within({ address: request.ip }, () =>
        provider.exchangeTokenCredentials(toIncomingRequest(request, transport)),
      );
      const session = issued.session;
      return reply
        .header('content-type', 'application/x-www-form-urlencoded')
        .header('cache-control', 'no-store')
        .send(
          formReply({
            oauth_token: issued.token,
            oauth_token_secret: issued.secret,
            // The session extension, for a client registered with it.
            ...(session === undefined
              ? {}
              : {
                  oauth_expires_in: String(session.expiresIn),
                  oauth_session_handle: session.handle,
                  oauth_authorization_expires_in: String(session.authorizationExpiresIn),
                }),
            // Who the owner is, for a client registered with it (docs/identity.md).
            ...(issued.identity === undefined
              ? {}
              : { user_id: issued.identity.userId, screen_name: issued.identity.screenName }),
          }),
        );
    },
  });

  app.route({
    method: 'POST',
    url: paths.invalidateToken,
    schema: invalidateSchema,
    handler: async function invalidateToken(request, reply) {
      // The client's own revocation is recorded with its address (the audit trail).
      const ended = await provider.audit.within({ address: request.ip }, () =>
        provider.invalidateToken(toIncomingRequest(request, transport)),
      );
      return reply
        .header('content-type', 'application/x-www-form-urlencoded')
        .header('cache-control', 'no-store')
        .send(formReply({ oauth_token: ended.token }));
    },
  });
}
