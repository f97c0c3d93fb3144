// The layers tables of README.md and docs/architecture.md say what the lint enforces: for
// each layer, the layers it may import are exactly those eslint.config.js does not forbid.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

// A URL, not a module name: the lint config is plain JavaScript without types.
const config = new URL('../../eslint.config.js', import.meta.url).href;
const { layers } = (await import(config)) as { layers: Record<string, string[]> };

const names = ['protocol', 'client', 'store', 'provider', 'http', 'web', 'cli'] as const;

/** Layer → the layers its table row says it may import. */
function mayImport(page: string): Map<string, Set<string>> {
  const rows = new Map<string, Set<string>>();
  for (const line of readFileSync(page, 'utf8').split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    const folder = /^`src\/(\w+)\/`$/.exec(cells[1] ?? '')?.[1];
    if (folder === undefined || !(names as readonly string[]).includes(folder)) continue;
    const allowed = (cells.at(-2) ?? '').replace(/\((not|never) [^)]*\)/g, '');
    const imports = allowed.includes('everything')
      ? names.filter((name) => name !== folder)
      : names.filter((name) => new RegExp(`\\b${name}\\b`).test(allowed));
    rows.set(folder, new Set(imports));
  }
  return rows;
}

describe('The layers tables', () => {
  for (const page of ['README.md', 'docs/architecture.md']) {
    it(`in ${page} match the import rules of eslint.config.js`, () => {
      const rows = mayImport(page);
      assert.deepEqual([...rows.keys()].sort(), [...names].sort(), 'one row per layer');
      for (const layer of names) {
        const forbidden = new Set(layers[layer] ?? []);
        const allowed = names.filter((name) => name !== layer && !forbidden.has(name));
        assert.deepEqual([...rows.get(layer)!].sort(), allowed.sort(), `src/${layer}/`);
      }
    });
  }
});
