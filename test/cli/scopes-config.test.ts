// Operator-defined scopes (docs/decisions.md "Scope and lifetime", docs/configuration.md
// `scopes`): the config file names them with the words the consent page shows, a client may
// ask for them and no others, and a gateway rule requiring a scope nobody defined stops the
// server at start-up instead of guarding a path no token can ever open.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/cli/config/config.ts';
import { policyOf } from '../../src/cli/context.ts';
import { authorizePath, startWeb } from '../web/support.ts';
import { bin, workspace } from './run-cli.ts';

const space = workspace();
after(() => space.remove());

let files = 0;
function configFile(content: unknown): string {
  const path = join(space.dir, `config-${++files}.json`);
  writeFileSync(path, JSON.stringify(content));
  return path;
}

function refusal(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  assert.fail('expected a ConfigError');
}

const photos = {
  photos: 'See your photos',
  'photos.write': 'Add & delete your <b>photos</b>',
};

describe('scopes in the configuration', () => {
  it('takes scopes from the file, the default scope being every one of them', async () => {
    const config = loadConfig({ env: {}, file: configFile({ scopes: photos }) });
    assert.deepEqual(config.scopes, photos);
    const policy = await policyOf(config);
    assert.deepEqual(policy.scopes, photos);
    assert.equal(policy.defaultScope, 'photos photos.write');
  });

  it('keeps the built-in read and write without scopes', async () => {
    const policy = await policyOf(loadConfig({ env: {} }));
    assert.deepEqual(Object.keys(policy.scopes ?? {}), ['read', 'write']);
    assert.equal(policy.defaultScope, 'read write');
  });

  it('shows each requested scope’s description on the consent page, and refuses a scope not defined', async () => {
    const config = loadConfig({
      env: { LATCHKEY_SCOPES: JSON.stringify(photos), LATCHKEY_DEFAULT_SCOPE: 'photos' },
    });
    const world = await startWeb({ policy: await policyOf(config) });
    try {
      await world.owner('alice');
      const client = await world.client();
      const temporary = await world.temporary(client, 'oob', 'photos photos.write');
      const browser = world.browser();
      await browser.signIn('alice');
      const page = (await browser.get(authorizePath(temporary))).body;
      assert.match(page, /<input type="checkbox" name="scope" value="photos" checked>/);
      assert.match(page, /See your photos/);
      // The operator's words, escaped like any text on the page.
      assert.match(page, /Add &amp; delete your &lt;b&gt;photos&lt;\/b&gt;/);
      assert.doesNotMatch(page, /See your profile and read your data/);
      await assert.rejects(world.temporary(client, 'oob', 'read'), /parameter_rejected|scope/);
    } finally {
      await world.close();
    }
  });

  it('refuses a scope definition that is not a name and its words', () => {
    for (const scopes of [[], {}, { 'has space': 'x' }, { photos: '' }, { photos: 7 }, 'nope']) {
      const error = refusal(() => loadConfig({ env: {}, file: configFile({ scopes }) }));
      assert.equal(error.setting, 'scopes');
      assert.match(error.message, /^scopes \(in .*\): /);
    }
  });

  it('refuses a default scope that names a scope not defined', () => {
    const error = refusal(() =>
      loadConfig({ env: {}, file: configFile({ scopes: photos, defaultScope: 'read' }) }),
    );
    assert.equal(error.setting, 'defaultScope');
    assert.match(error.message, /names "read", not among the scopes \(photos, photos\.write\)/);
  });

  it('refuses a gateway rule that requires a scope not defined, naming the rule', () => {
    const file = configFile({
      scopes: photos,
      gateway: {
        upstream: 'http://127.0.0.1:9',
        rules: [
          { path: '/public/*', access: 'public' },
          { path: '/albums/*', scope: 'albums' },
        ],
      },
    });
    const error = refusal(() => loadConfig({ env: {}, file }));
    assert.equal(error.setting, 'gateway.rules');
    assert.match(
      error.message,
      /rule 1 \(\/albums\/\*\) requires scope "albums", which no client can be granted: define it in scopes \(defined: photos, photos\.write\)/,
    );
  });

  it('stops `latchkey serve` at start-up on such a rule, with the message and no server', async () => {
    const file = configFile({
      gateway: { upstream: 'http://127.0.0.1:9', rules: [{ path: '/*', scope: 'photos' }] },
    });
    const child = spawn(process.execPath, [bin, 'serve', '--port', '0'], {
      env: { ...space.env, LATCHKEY_CONFIG: file },
    });
    let stdout = '';
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    // A server that starts anyway is stopped, and the test fails on its banner.
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      if (/listening/.test(stdout)) child.kill('SIGTERM');
    });
    const [code] = (await once(child, 'close')) as [number | null];
    assert.doesNotMatch(stdout, /listening/);
    assert.notEqual(code, 0);
    assert.match(stderr, /rule 0 \(\/\*\) requires scope "photos", which no client/);
  });
});
