/**
 * The two signed flow endpoints (§2.1 temporary credentials, §2.3 token credentials),
 * answered as the spec says: 200, application/x-www-form-urlencoded, and the client's own
 * end of a token (`POST /oauth/invalidate_token`, provider/invalidation.ts), answered alike. They need TLS or an
 * equivalent channel (§2.1, §2.3): the provider refuses them otherwise (403 https_required,
 * provider/steps/check-channel.ts), on the channel incoming-request.ts finds.
 */
import type { FastifyInstance } from 'fastify';
import { percentEncode } from '../../protocol/index.ts';
import type { Provider } from '../../provider/index.ts';
import { toIncomingRequest } from '../incoming-request.ts';
import type { TransportSettings } from '../incoming-request.ts';
import type { FlowPaths } from '../options.ts';

// §2.1 and §2.3 say POST "unless the server recommends another method"; GET is accepted
// too, because older clients send it, and the signature covers the method either way.
const FLOW_METHODS = ['POST', 'GET'] as const;

function formReply(fields: Record<string, string>): string {
  return Object.entries(fields)
    .map(([name, value]) => `${name}=${percentEncode(value)}`)
    .join('&');
}

export function registerFlowRoutes(
  app: FastifyInstance,
  provider: Provider,
  paths: FlowPaths,
  transport: TransportSettings,
): void {
  app.route({
    method: [...FLOW_METHODS],
    url: paths.requestToken,
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
    handler: async function requestTokenCredentials(request, reply) {
      const issued = await provider.exchangeTokenCredentials(toIncomingRequest(request, transport));
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
          }),
        );
    },
  });

  app.route({
    method: 'POST',
    url: paths.invalidateToken,
    handler: async function invalidateToken(request, reply) {
      const ended = await provider.invalidateToken(toIncomingRequest(request, transport));
      return reply
        .header('content-type', 'application/x-www-form-urlencoded')
        .header('cache-control', 'no-store')
        .send(formReply({ oauth_token: ended.token }));
    },
  });
}
