/**
 * The HTTP side of the audit trail (src/provider/audit.ts): each request to the pages and the
 * admin API runs in its audit context (the address, and the admin API as the actor), and each
 * recorded event becomes one log line (`event: "audit"`, never a secret).
 */
import type { FastifyInstance } from 'fastify';
import type { Provider } from '../provider/index.ts';

/** The pages' scope: what they cause is recorded with the request's address. */
export function registerAuditContext(scope: FastifyInstance, provider: Provider): void {
  scope.addHook('onRequest', function auditContext(request, _reply, done) {
    const actor = request.url.startsWith('/admin/') ? 'admin' : undefined;
    provider.audit.within({ address: request.ip, actor }, done);
  });
}

/** One log line per audit event, for as long as the app runs. */
export function registerAuditLog(app: FastifyInstance, provider: Provider): void {
  const write = (entry: object) => app.log.info({ event: 'audit', audit: entry }, 'audit');
  provider.events.on('audit', write);
  app.addHook('onClose', async () => {
    provider.events.off('audit', write);
  });
}
