// The JSON config files the docs show are what `latchkey --config FILE` accepts: each parses
// and the config loader takes it with nothing else set (a setting it does not know, or a value
// it refuses, fails here). nginx and Caddy blocks run in test/edge and test/fleet.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { loadConfig } from '../../src/cli/config/config.ts';
import { checkedDocs, codeBlocks, kindOf } from '../package/doc-blocks.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const folder = mkdtempSync(join(tmpdir(), 'latchkey-config-blocks-'));
after(() => rmSync(folder, { recursive: true, force: true }));

describe('the JSON config blocks of README.md and docs/*.md', () => {
  const blocks = checkedDocs(root)
    .flatMap((file) => codeBlocks(root, file))
    .filter((block) => block.language === 'json' && kindOf(block) === 'config');

  it('are found where the docs show a config file', () => {
    assert.deepEqual(
      [...new Set(blocks.map((block) => block.file))],
      ['docs/configuration.md', 'docs/deployment.md', 'docs/gateway.md', 'docs/lti.md'],
    );
  });

  for (const block of blocks) {
    it(`${block.file}:${block.line} is accepted by the config loader`, () => {
      const file = join(folder, `${block.file.replaceAll('/', '-')}-${block.line}.json`);
      writeFileSync(file, block.code);
      const config = loadConfig({ file, env: {} });
      const shown = JSON.parse(block.code) as Record<string, unknown>;
      for (const [name, value] of Object.entries(shown)) {
        if (typeof value !== 'object' || value === null) {
          assert.equal(String((config as Record<string, unknown>)[name]).length > 0, true, name);
        }
      }
    });
  }
});
