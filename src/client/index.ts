/** The client SDK: sign any request, a signing fetch, the three-step flow, LTI 1.1 outcomes. Re-exports only. */
export * from './fetch.ts';
export * from './flow.ts';
export * from './sign.ts';
export * from './lti-outcomes.ts';
