/** The front page: where a person lands, and where every error page points back to. */
import type { FastifyInstance } from 'fastify';
import type { WebContext } from '../context.ts';
import { html, page } from '../../http/route-schemas.ts';

export async function homeRoutes(fastify: FastifyInstance, web: WebContext): Promise<void> {
  const schema = page('Landing page', {
    200: html('Links to the pages for owners and developers.'),
  });
  fastify.get('/', { schema }, async (request, reply) =>
    web.render(request, reply, 'home', { title: 'Welcome' }),
  );
}
