import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { errorsDocPath, renderErrorsDoc } from '../../scripts/generate-errors-docs.ts';

describe('docs/errors.md', () => {
  it('matches the oauth_problem catalog (run `npm run docs:errors` after changing it)', () => {
    assert.equal(readFileSync(errorsDocPath, 'utf8'), renderErrorsDoc());
  });
});
