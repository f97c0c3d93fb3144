/**
 * `/api/me`: the protected resource every deployment has, for checking credentials and
 * diagnosing a client. Any method; a request signed by the client alone is accepted
 * (owner null). It echoes the non-protocol parameters the signature covered, decoded.
 */
import type { FastifyInstance } from 'fastify';
import type { Provider } from '../../provider/index.ts';
import { toIncomingRequest } from '../incoming-request.ts';
import type { TransportSettings } from '../incoming-request.ts';

export function registerApiMe(
  app: FastifyInstance,
  provider: Provider,
  transport: TransportSettings,
): void {
  app.all('/api/me', async function describeCaller(request, reply) {
    const verified = await provider.verifyResourceRequest(toIncomingRequest(request, transport), {
      tokenRequired: false,
    });
    const token = verified.tokenCredential;
    const owner =
      token === undefined
        ? undefined
        : (provider.owners.peekById(token.ownerId) ??
          (await provider.owners.findById(token.ownerId)));
    // Spec "Server obligations": keep authenticated content out of shared caches.
    return reply.header('cache-control', 'no-store').send({
      client: { key: verified.client.key, name: verified.client.name },
      owner: owner === undefined ? null : { id: owner.id, username: owner.username },
      scope: token === undefined ? null : token.scope,
      method: request.method,
      query: verified.parameters.query,
      form: verified.parameters.form,
    });
  });
}
