import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { renderSecurityDoc, securityDocPath } from '../../scripts/generate-audit-docs.ts';

describe('docs/security.md "The audit trail"', () => {
  it('lists the audited events of src/provider/audit.ts (run `npm run docs:audit` after changing it)', async () => {
    assert.equal(readFileSync(securityDocPath, 'utf8'), await renderSecurityDoc());
  });
});
