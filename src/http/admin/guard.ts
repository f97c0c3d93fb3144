/**
 * Who is calling the admin API, and whether they may: every request is authenticated by the
 * provider from its `Authorization: Bearer` token and address (401, or 429 after a flood of
 * wrong tokens), each route names the action it takes (`config.action`, checked against the
 * role: 403), and the request then runs in its audit context, so what it changes is recorded
 * with the admin token's name and the address.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AdminAction, AdminIdentity, Provider } from '../../provider/index.ts';

const identities = new WeakMap<FastifyRequest, AdminIdentity>();

/** The caller, once the guard authenticated it. */
export function adminOf(request: FastifyRequest): AdminIdentity {
  const admin = identities.get(request);
  if (admin === undefined) throw new Error('The admin guard did not run.');
  return admin;
}

/** What each admin route declares in its `config`. */
export interface AdminRouteConfig {
  readonly action: AdminAction;
}

export function guardAdminApi(scope: FastifyInstance, provider: Provider): void {
  scope.addHook('onRequest', async function authenticateAdmin(request) {
    const admin = await provider.admin.tokens.authenticate(
      request.headers.authorization,
      request.ip,
    );
    identities.set(request, admin);
    const { action } = request.routeOptions.config as Partial<AdminRouteConfig>;
    // A route without an action is a mistake in this folder: refused, never open.
    if (action === undefined) throw new Error('An admin route names no action.');
    provider.admin.authorize(admin, action);
  });
  // The body is read by now; the handler runs within the audit context from here.
  scope.addHook('preHandler', function adminAuditContext(request, _reply, done) {
    const admin = adminOf(request);
    provider.audit.within({ address: request.ip, actor: 'admin', admin: admin.name }, done);
  });
}
