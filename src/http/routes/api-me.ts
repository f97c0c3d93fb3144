/**
 * `/api/me`: the protected resource every deployment has, for checking credentials and
 * diagnosing a client. Any method; a request signed by the client alone is accepted
 * (owner null). The owner is given by its subject in its identity source (docs/identity.md)
 * and its display name. It echoes the non-protocol parameters the signature covered, decoded.
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
    const { caller } = verified;
    // Spec "Server obligations": keep authenticated content out of shared caches.
    return reply.header('cache-control', 'no-store').send({
      client: caller.client,
      owner: caller.owner,
      scope: caller.scope,
      method: request.method,
      query: verified.parameters.query,
      form: verified.parameters.form,
    });
  });
}
