/**
 * The admin API (docs/admin.md): clients, owners, tokens and grants, the audit trail, the
 * sealing keys and the server's health, under `/admin/`, behind admin tokens with roles.
 * Registered in a context of its own: the guard (guard.ts) authenticates every request and
 * checks its role, every problem is `application/problem+json` (problem.ts), and bodies are
 * JSON of at most ADMIN_BODY_LIMIT bytes. On the public listener by default, or on its own
 * (admin-app.ts) so it can be kept off the public network.
 */
import type { FastifyInstance } from 'fastify';
import type { Provider } from '../../provider/index.ts';
import { registerAdminAudit } from './audit.ts';
import { registerAdminClients } from './clients.ts';
import { guardAdminApi } from './guard.ts';
import { registerAdminOwners } from './owners.ts';
import { adminErrorHandler } from './problem.ts';
import { registerAdminService } from './service.ts';
import { registerAdminTokens } from './tokens.ts';

/** The largest admin API body, in bytes: the longest is a client with its RSA key. */
export const ADMIN_BODY_LIMIT = 32 * 1024;

export async function registerAdminApi(app: FastifyInstance, provider: Provider): Promise<void> {
  await app.register(async function adminApi(scope) {
    scope.addHook('onRoute', function limitAdminBody(route) {
      route.bodyLimit ??= ADMIN_BODY_LIMIT;
    });
    scope.setErrorHandler(adminErrorHandler);
    guardAdminApi(scope, provider);
    registerAdminClients(scope, provider);
    registerAdminOwners(scope, provider);
    registerAdminTokens(scope, provider);
    registerAdminAudit(scope, provider);
    registerAdminService(scope, provider);
  });
}
