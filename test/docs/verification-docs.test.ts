import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { decisionsDocPath, withStepsTable } from '../../scripts/generate-verification-docs.ts';

describe('docs/decisions.md "Verification steps"', () => {
  it('matches the pipelines (run `node scripts/generate-verification-docs.ts` after changing them)', () => {
    const text = readFileSync(decisionsDocPath, 'utf8');
    assert.equal(text, withStepsTable(text));
  });
});
