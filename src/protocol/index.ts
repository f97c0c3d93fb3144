/** The protocol core: pure RFC 5849, no I/O, no clock, no storage. Re-exports only. */
export * from './authorization-header.ts';
export * from './base-string.ts';
export * from './body-hash.ts';
export * from './error-response.ts';
export * from './errors.ts';
export * from './form-urlencoded.ts';
export * from './parameters.ts';
export * from './percent-encoding.ts';
export * from './problems.ts';
export * from './signature-methods.ts';
export * from './types.ts';
