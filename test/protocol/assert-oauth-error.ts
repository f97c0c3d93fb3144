// Asserts that a call fails with OAuthError carrying the expected problem and status, the
// stable parts of an error (STYLE.md 6.5: check status and problem, not only the text).
import assert from 'node:assert/strict';
import { OAuthError, problems } from '../../src/protocol/index.ts';
import type { OAuthProblem } from '../../src/protocol/index.ts';

export function assertOAuthError(
  run: () => unknown,
  problem: OAuthProblem,
  status: number = problems[problem].status,
): OAuthError {
  let caught: unknown;
  try {
    run();
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof OAuthError, `expected an OAuthError, got ${String(caught)}`);
  assert.equal(caught.problem, problem);
  assert.equal(caught.status, status);
  return caught;
}
