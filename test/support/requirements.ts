// A suite that needs a service or tool asks here. On a newcomer's machine without it the
// suite is skipped with a plain reason; under CI (CI=true) nothing may be skipped, so the
// missing requirement fails the run instead.
import { test } from 'node:test';

export const inCI = process.env.CI === 'true' || process.env.CI === '1';

/**
 * Returns `false` when the requirement is met, or the skip reason (for `describe`'s `skip`
 * option) when it is not. Under CI a missing requirement registers a failing test.
 */
export function requirement(what: string, problem: string | undefined): string | false {
  if (problem === undefined) return false;
  const reason = `${what} unavailable: ${problem}`;
  if (inCI) {
    test(`requirement: ${what}`, () => {
      throw new Error(`${reason} (CI may not skip suites)`);
    });
    return false;
  }
  console.log(`# SKIPPED suite needing ${reason}`);
  return reason;
}
