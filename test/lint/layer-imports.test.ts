// The lint's import direction (eslint.config.js, docs/architecture.md "Layers"): every way one
// module can load another is refused across a layer, not only a static import. The fixtures are
// linted as if they stood at the path given, so the config for that folder applies.
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { ESLint } from 'eslint';

const root = fileURLToPath(new URL('../../', import.meta.url));
const eslint = new ESLint({ cwd: root });

/** The messages of the layer rule for `code` standing at `path` (relative to the repository). */
async function layerErrors(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: `${root}${path}` });
  assert.ok(result !== undefined);
  return result.messages
    .filter((message) => message.ruleId === 'latchkey/layer-imports')
    .map((message) => message.message);
}

describe('The layer rule (eslint.config.js)', () => {
  const refused = [
    ['a static import', 'src/http/fixture.ts', "import { x } from '../store/types.ts';\nvoid x;"],
    [
      'a dynamic import()',
      'src/http/fixture.ts',
      "export const load = () => import('../store/open.ts');",
    ],
    [
      'a dynamic import() of a template without expressions',
      'src/web/fixture.ts',
      'export const load = () => import(`../store/open.ts`);',
    ],
    ['a re-export of names', 'src/web/fixture.ts', "export { openStore } from '../store/open.ts';"],
    ['a re-export of everything', 'src/store/fixture.ts', "export * from '../provider/index.ts';"],
    [
      'src/index.ts from a layer',
      'src/store/fixture.ts',
      "import { x } from '../index.ts';\nvoid x;",
    ],
    [
      'src/index.ts from a folder inside a layer',
      'src/store/sql/fixture.ts',
      "export const load = () => import('../../index.ts');",
    ],
    ['src/index.ts by the package name', 'src/http/fixture.ts', "export * from 'latchkey';"],
  ] as const;
  for (const [how, path, code] of refused) {
    it(`refuses a layer break made through ${how}`, async () => {
      const errors = await layerErrors(path, code);
      assert.equal(errors.length, 1, errors.join('\n'));
      assert.match(errors[0]!, /docs\/architecture\.md: imports go one way/);
    });
  }

  const allowed = [
    ['a layer its own index.ts', 'src/store/sql/fixture.ts', "export * from '../index.ts';"],
    [
      'a layer above it, dynamically',
      'src/store/fixture.ts',
      "export const load = () => import('../protocol/problems.ts');",
    ],
    ['the CLI anything', 'src/cli/fixture.ts', "export * from '../index.ts';"],
  ] as const;
  for (const [what, path, code] of allowed) {
    it(`lets ${what}`, async () => {
      assert.deepEqual(await layerErrors(path, code), []);
    });
  }
});
