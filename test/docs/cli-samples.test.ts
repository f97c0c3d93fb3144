// docs/cli.md shows what the commands print (`console` samples, not pasted). Their fixed lines
// (no key, secret, time or path in them) must be what the code prints, word for word.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { codeBlocks } from '../package/doc-blocks.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const source = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');

describe('docs/cli.md samples', () => {
  const samples = codeBlocks(root, 'docs/cli.md')
    .filter((block) => block.language === 'console')
    .map((block) => block.code)
    .join('');

  for (const [line, file] of [
    ['Open this URL in a browser, sign in and allow access:', 'src/cli/commands/authorize.ts'],
    ['Try it: npx latchkey request', 'src/cli/commands/authorize.ts'],
    ['Then enter the verifier the page shows: ', 'src/cli/commands/authorize.ts'],
    ['The secret is shown this once: store it now.', 'src/cli/commands/client-view.ts'],
    ['Dry run: nothing was written.', 'src/cli/commands/import.ts'],
  ] as const) {
    it(`prints "${line.trim()}" as ${file} does`, () => {
      assert.ok(samples.includes(line), `docs/cli.md has no "${line}"`);
      assert.ok(source(file).includes(line), `${file} does not print "${line}"`);
    });
  }
});
