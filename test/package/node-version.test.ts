// The Node versions the package runs on: package.json's `engines` and the check the CLI and
// the library make first (src/node-version.ts) say the same range, and the refusal names the
// Node needed and the command that gets it. The installed package on the machine's own Node
// is checked by scripts/check-package.ts.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { SUPPORTED_NODE, unsupportedNode } from '../../src/node-version.ts';

const manifest = JSON.parse(
  readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
) as { engines: { node: string } };

describe('the supported Node versions', () => {
  it('are the range package.json declares', () => {
    assert.equal(manifest.engines.node, SUPPORTED_NODE);
  });

  it('take 22.16 and later 22s, and 24 on; refuse older ones and 23 with one line saying what to do', () => {
    for (const version of ['22.16.0', '22.21.1', '24.0.0', '24.21.0', '25.1.0']) {
      assert.equal(unsupportedNode(version), undefined, version);
    }
    for (const version of ['20.20.2', '22.15.1', '22.5.0', '23.11.0', '18.0.0']) {
      const line = unsupportedNode(version);
      assert.ok(line !== undefined, version);
      assert.doesNotMatch(line, /\n/);
      assert.match(line, new RegExp(`this is Node\\.js ${version.replaceAll('.', '\\.')}`));
      assert.match(line, /22\.16\+ or 24\+/);
      assert.match(line, /npm install -D node@24/);
    }
  });
});
