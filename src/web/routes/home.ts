/** The front page: where a person lands, and where every error page points back to. */
import type { FastifyInstance } from 'fastify';
import type { WebContext } from '../context.ts';

export async function homeRoutes(fastify: FastifyInstance, web: WebContext): Promise<void> {
  fastify.get('/', async (request, reply) =>
    web.render(request, reply, 'home', { title: 'Welcome' }),
  );
}
