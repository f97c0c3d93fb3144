/** The client SDK: sign any request, a signing fetch, and the three-step flow. Re-exports only. */
export * from './fetch.ts';
export * from './flow.ts';
export * from './sign.ts';
