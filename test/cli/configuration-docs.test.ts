import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { docsPath, renderConfigDocs } from '../../scripts/generate-config-docs.ts';

describe('docs/configuration.md', () => {
  it('is what `npm run docs:config` generates from the settings tables of src/cli/config/ (run it after changing a setting)', async () => {
    assert.equal(readFileSync(docsPath, 'utf8'), await renderConfigDocs());
  });
});
