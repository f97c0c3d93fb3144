/**
 * Latchkey's public API: the provider and its stores, the HTTP app and gateway, the
 * middleware for a team's own server, the client SDK and the protocol core. Re-exports only.
 */
export * from './protocol/index.ts';
export * from './client/index.ts';
export * from './store/index.ts';
export * from './provider/index.ts';
export { buildApp } from './http/app.ts';
export type { BuildOptions, PagesContext } from './http/app.ts';
export type { AppOptions, FlowPaths } from './http/options.ts';
export type { GatewayOptions, IdentityHeaderNames } from './http/gateway.ts';
export type { GatewayAccess, GatewayRule } from './http/gateway-rules.ts';
export * from './http/middleware/index.ts';
export { buildServer } from './server.ts';
export { IdentityProviderError, webPlugin } from './web/index.ts';
export type { WebOptions } from './web/index.ts';
