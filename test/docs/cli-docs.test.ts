// docs/cli.md restates what `latchkey migrate` prints; the schema version it shows must be the
// embedded store's current one, or the page has drifted from the code.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { migrations } from '../../src/store/sqlite/migrations.ts';

describe('docs/cli.md', () => {
  it('shows `latchkey migrate` at the embedded store’s current schema version', () => {
    const page = readFileSync(new URL('../../docs/cli.md', import.meta.url), 'utf8');
    const section = page.slice(page.indexOf('## `latchkey migrate`'));
    const shown = [
      ...section.matchAll(/schema version (\d+)\)|"(?:schemaVersion|latestVersion)": (\d+)/g),
    ]
      .slice(0, 3)
      .map((match) => Number(match[1] ?? match[2]));
    assert.deepEqual(shown, [migrations.length, migrations.length, migrations.length]);
  });
});
