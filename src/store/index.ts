/** The storage layer's public face: the contract (types.ts) and the adapters' factories. */
export * from './types.ts';
export { nonceHash } from './nonce-hash.ts';
export { createSqliteStore, type SqliteStoreOptions } from './sqlite/index.ts';
