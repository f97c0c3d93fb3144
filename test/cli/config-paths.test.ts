// docs/configuration.md, "The config file": relative file paths in the file are taken from
// the file's folder. Every setting that names a file is read that way, and the page names
// each of them (secretKeyFile included).
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { loadConfig, settingNames, settings } from '../../src/cli/config/config.ts';
import type { Setting } from '../../src/cli/config/config.ts';
import { workspace } from './run-cli.ts';

const space = workspace();
after(() => space.remove());

const pathSettings = settingNames.filter(
  (name) => (settings[name] as Setting<unknown>).isPath === true,
);

describe('paths in the config file', () => {
  it('reads every file setting relative to the config file’s folder', () => {
    assert.ok(pathSettings.includes('secretKeyFile'));
    const file = join(space.dir, 'latchkey.json');
    const values: Record<string, string> = {
      database: 'data/x.db',
      tlsCert: 'tls/cert.pem',
      tlsKey: 'tls/key.pem',
      secretKeyFile: 'keys/latchkey.key',
    };
    assert.deepEqual(Object.keys(values).sort(), [...pathSettings].sort());
    writeFileSync(file, JSON.stringify(values));
    const config = loadConfig({ env: {}, file }) as unknown as Record<string, unknown>;
    for (const [name, relative] of Object.entries(values)) {
      assert.equal(config[name], join(space.dir, relative), name);
    }
  });

  it('names each of them in docs/configuration.md', () => {
    const page = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
    const line = /^Relative file paths \(([^)]*)\) are taken from the folder of the file\.$/m.exec(
      page,
    );
    assert.ok(line !== null);
    assert.deepEqual(
      line[1]!
        .split(', ')
        .map((name) => name.replace(/`/g, ''))
        .sort(),
      [...pathSettings].sort(),
    );
  });
});
