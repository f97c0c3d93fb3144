/** Verification inside a team's own server: Fastify, Express, node:http. Re-exports only. */
export type { OAuthCaller } from './caller.ts';
export { latchkeyExpress } from './express.ts';
export type { ExpressLikeMiddleware, ExpressLikeRequest } from './express.ts';
export { latchkeyFastify } from './fastify.ts';
export type { FastifyMiddlewareOptions } from './fastify.ts';
export { createNodeVerifier } from './node.ts';
export type { NodeVerifier, VerifiedNodeRequest } from './node.ts';
export type { MiddlewareOptions } from './options.ts';
