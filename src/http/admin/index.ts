/**
 * The admin API (docs/admin.md): clients, owners, tokens and grants, the audit trail, the
 * sealing keys, webhooks and the server's health, under `/admin/`, behind admin tokens with roles.
 * Registered in a context of its own: the guard (guard.ts) authenticates every request and
 * checks its role, every problem is `application/problem+json` (problem.ts), and bodies are
 * JSON of at most ADMIN_BODY_LIMIT bytes. On the public listener by default, or on its own
 * (admin-app.ts) so it can be kept off the public network.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { InputError, type Provider } from '../../provider/index.ts';
import { registerAdminAudit } from './audit.ts';
import { registerAdminClients } from './clients.ts';
import { registerAdminKeys } from './keys.ts';
import { guardAdminApi } from './guard.ts';
import { registerAdminOwners } from './owners.ts';
import { registerAdminProvisioning } from './provisioning.ts';
import { adminErrorHandler } from './problem.ts';
import { completeProblems } from './route-parts.ts';
import { registerAdminService } from './service.ts';
import { registerAdminTokens } from './tokens.ts';
import { registerAdminWebhooks } from './webhooks.ts';

/** The largest admin API body, in bytes: the longest is a client with its RSA key. */
export const ADMIN_BODY_LIMIT = 32 * 1024;

interface ObjectSchema {
  readonly properties?: Record<string, unknown>;
  readonly additionalProperties?: unknown;
}

/**
 * A field the schema does not name is refused (400), not dropped as Fastify's validator would
 * (its `removeAdditional`): a misspelt field must not turn a change into no change.
 */
async function refuseUnknownFields(request: FastifyRequest) {
  const schema = request.routeOptions.schema as
    { body?: ObjectSchema; querystring?: ObjectSchema } | undefined;
  const parts = [
    [schema?.body, request.body],
    [schema?.querystring, request.query],
  ] as const;
  for (const [part, value] of parts) {
    if (part?.additionalProperties !== false || typeof value !== 'object' || value === null) {
      continue;
    }
    if (Array.isArray(value)) continue; // the schema refuses it as not an object
    const unknown = Object.keys(value).find((name) => !Object.hasOwn(part.properties ?? {}, name));
    if (unknown !== undefined) {
      throw new InputError(
        unknown.slice(0, 64),
        `Unknown field ${JSON.stringify(unknown.slice(0, 64))}.`,
      );
    }
  }
}

export async function registerAdminApi(app: FastifyInstance, provider: Provider): Promise<void> {
  await app.register(async function adminApi(scope) {
    scope.addHook('onRoute', function limitAdminBody(route) {
      route.bodyLimit ??= ADMIN_BODY_LIMIT;
      completeProblems(route);
    });
    scope.setErrorHandler(adminErrorHandler);
    // Every answer names clients, owners or tokens, some a secret shown once: none is cached.
    scope.addHook('onRequest', function noStore(_request, reply, done) {
      reply.header('cache-control', 'no-store');
      done();
    });
    guardAdminApi(scope, provider);
    scope.addHook('preValidation', refuseUnknownFields);
    registerAdminClients(scope, provider);
    registerAdminOwners(scope, provider);
    registerAdminTokens(scope, provider);
    registerAdminAudit(scope, provider);
    registerAdminService(scope, provider);
    registerAdminProvisioning(scope, provider);
    registerAdminKeys(scope, provider);
    registerAdminWebhooks(scope, provider);
  });
}
