/**
 * The documentation page served by Latchkey: the three endpoint URIs (§2 asks the
 * server to advertise them), the signature methods, a worked example of the flow, and the
 * error vocabulary straight from the problem catalog, so the page cannot drift from the code.
 */
import type { FastifyInstance } from 'fastify';
import { problems } from '../../protocol/index.ts';
import type { WebContext } from '../context.ts';
import { exampleCredentials, workedExample } from '../docs-example.ts';
import { formatDuration } from '../format.ts';
import { OPENAPI_PATH } from '../../http/openapi.ts';
import { html, page } from '../../http/route-schemas.ts';

export async function docsRoutes(fastify: FastifyInstance, web: WebContext): Promise<void> {
  const { options, render } = web;
  const { policy } = options.provider;

  const schema = page('Documentation for client developers', {
    200: html(
      'The endpoints, signature methods, an example signed request, and a link to /openapi.json.',
    ),
  });
  fastify.get('/docs', { schema }, async (request, reply) => {
    const base = options.baseUrlOf(request);
    return render(request, reply, 'docs', {
      title: 'Developer documentation',
      wide: true,
      base,
      endpoints: {
        requestToken: base + options.paths.requestToken,
        authorize: base + options.paths.authorize,
        accessToken: base + options.paths.accessToken,
        invalidateToken: base + options.paths.invalidateToken,
      },
      openapi: base + OPENAPI_PATH,
      methods: policy.signatureMethods.names(),
      window: formatDuration(policy.timestampWindowSeconds),
      temporaryLifetime: formatDuration(policy.temporaryCredentialLifetimeSeconds),
      maxVerifierFailures: policy.maxVerifierFailures,
      scopes: Object.entries(policy.scopes),
      defaultScope: policy.defaultScope,
      example: workedExample(base, options.paths),
      credentials: exampleCredentials,
      problems: Object.entries(problems).map(([code, entry]) => ({ code, ...entry })),
    });
  });
}
