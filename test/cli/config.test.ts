import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ConfigError, formerNames, loadConfig, settings } from '../../src/cli/config/config.ts';
import { webhookSettings } from '../../src/cli/config/webhooks.ts';
import { edgeSettings } from '../../src/cli/config/edge.ts';
import { gatewaySettings } from '../../src/cli/config/gateway.ts';
import { identitySettings } from '../../src/cli/config/identity.ts';
import { policySettings } from '../../src/cli/config/policy.ts';
import { serverSettings } from '../../src/cli/config/server.ts';
import { storeSettings } from '../../src/cli/config/store.ts';
import { policyOf } from '../../src/cli/context.ts';
import { workspace } from './run-cli.ts';

const space = workspace();
after(() => space.remove());

let files = 0;
function configFile(content: unknown): string {
  const path = join(space.dir, `config-${++files}.json`);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
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

describe('one configuration: defaults and validation', () => {
  it('has each setting from one area, and no former name that is a setting too', () => {
    const areas = [
      serverSettings,
      storeSettings,
      policySettings,
      identitySettings,
      gatewaySettings,
      edgeSettings,
      webhookSettings,
    ];
    const names = areas.flatMap((area) => Object.keys(area));
    assert.equal(new Set(names).size, names.length, 'a setting defined by two areas');
    assert.deepEqual(names, Object.keys(settings));
    const envs: string[] = Object.values(settings).map((setting) => setting.env);
    for (const former of formerNames) {
      assert.ok(!Object.hasOwn(settings, former.name), former.name);
      assert.ok(!envs.includes(former.env), former.env);
    }
  });

  it('has the documented defaults', () => {
    const config = loadConfig({ env: {} });
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.port, 8080);
    assert.equal(config.database, './data/latchkey.db');
    assert.equal(config.timestampWindowSeconds, 300);
    assert.equal(config.temporaryCredentialLifetimeSeconds, 600);
    assert.equal(config.tokenLifetimeSeconds, undefined);
    assert.equal(config.logLevel, 'info');
    assert.deepEqual(config.paths, {
      requestToken: '/oauth/request_token',
      authorize: '/oauth/authorize',
      accessToken: '/oauth/access_token',
    });
    assert.ok(config.signatureMethods.includes('HMAC-SHA1'));
  });

  it('names the environment variable of a bad value and shows what it got', () => {
    const error = refusal(() => loadConfig({ env: { LATCHKEY_PORT: 'abc' } }));
    assert.equal(error.message, 'LATCHKEY_PORT: must be an integer 0-65535, got "abc"');
    assert.equal(error.setting, 'port');
  });

  it('refuses a bad gateway rule with the gateway parser message, naming the rule', () => {
    const rules = JSON.stringify([{ path: '/public/*', access: 'public' }, { path: 'admin' }]);
    const error = refusal(() => loadConfig({ env: { LATCHKEY_GATEWAY_RULES: rules } }));
    assert.match(error.message, /^LATCHKEY_GATEWAY_RULES: rule 1: path must start with "\/"/);
    const scoped = JSON.stringify([{ path: '/p/*', access: 'public', scope: 'read' }]);
    const public_ = refusal(() => loadConfig({ env: { LATCHKEY_GATEWAY_RULES: scoped } }));
    assert.match(public_.message, /rule 0: a public path cannot require a scope/);
  });

  it('takes a postgres:// or postgresql:// URL or a file path as the database, nothing else', () => {
    for (const database of ['postgres://u@db/x', 'POSTGRESQL://u@db/x', './data/x.db']) {
      assert.equal(loadConfig({ env: { LATCHKEY_DATABASE: database } }).database, database);
    }
    const error = refusal(() => loadConfig({ env: { LATCHKEY_DATABASE: 'mysql://u@db/x' } }));
    assert.match(error.message, /must be a SQLite file path or a postgres:\/\/ URL/);
  });

  it('names the flag of a bad value', () => {
    const error = refusal(() => loadConfig({ flags: { timestampWindowSeconds: '0' } }));
    assert.match(error.message, /^--timestamp-window: must be an integer 1-86400, got "0"$/);
  });

  it('names the setting and the file of a bad value in the config file', () => {
    const file = configFile({ paths: { authorize: 'authorize' } });
    const error = refusal(() => loadConfig({ file }));
    assert.equal(
      error.message,
      `paths.authorize (in ${file}): must be a URL path starting with / (no query or fragment), got "authorize"`,
    );
  });

  it('refuses an unknown setting in the config file', () => {
    const file = configFile({ prot: 80 });
    assert.match(refusal(() => loadConfig({ file })).message, /^prot \(in .*\): unknown setting$/);
  });

  it('refuses a config file that is not JSON, naming the file', () => {
    const file = configFile('{ port: 80 ');
    assert.match(refusal(() => loadConfig({ file })).message, /^config file .*: not valid JSON/);
  });

  it('refuses an unknown signature method', () => {
    const error = refusal(() =>
      loadConfig({ env: { LATCHKEY_SIGNATURE_METHODS: 'HMAC-SHA1,MD5' } }),
    );
    assert.match(error.message, /^LATCHKEY_SIGNATURE_METHODS: must be a comma-separated list of /);
  });

  it('refuses a TLS certificate without its key, naming both', () => {
    const error = refusal(() => loadConfig({ flags: { tlsCert: 'cert.pem' } }));
    assert.match(error.message, /^--tls-cert: needs tlsKey too \(--tls-key or LATCHKEY_TLS_KEY\)/);
  });

  it('refuses two flow endpoints on the same path', () => {
    const error = refusal(() =>
      loadConfig({ env: { LATCHKEY_ACCESS_TOKEN_PATH: '/oauth/authorize' } }),
    );
    assert.match(error.message, /^LATCHKEY_ACCESS_TOKEN_PATH: must differ from paths.authorize/);
  });

  it('never echoes the session secret in a message', () => {
    const error = refusal(() => loadConfig({ env: { LATCHKEY_SESSION_SECRET: 'short-secret' } }));
    assert.equal(error.message, 'LATCHKEY_SESSION_SECRET: must be at least 32 characters');
  });

  it('reads booleans, lists and optional numbers from the environment', () => {
    const config = loadConfig({
      env: {
        LATCHKEY_TRUST_PROXY: 'true',
        LATCHKEY_SIGNATURE_METHODS: 'HMAC-SHA256, RSA-SHA256',
        LATCHKEY_TOKEN_LIFETIME: '86400',
      },
    });
    assert.equal(config.trustProxy, true);
    assert.deepEqual(config.signatureMethods, ['HMAC-SHA256', 'RSA-SHA256']);
    assert.equal(config.tokenLifetimeSeconds, 86400);
  });

  it('hands the session extension lifetimes to the provider policy', async () => {
    const defaults = await policyOf(loadConfig({ env: {} }));
    assert.equal(defaults.sessionTokenLifetimeSeconds, 3600);
    assert.equal(defaults.sessionExtensionLifetimeSeconds, 365 * 86400);
    const config = loadConfig({
      env: {
        LATCHKEY_SESSION_TOKEN_LIFETIME: '600',
        LATCHKEY_SESSION_EXTENSION_LIFETIME: '86400',
      },
    });
    const policy = await policyOf(config);
    assert.equal(policy.sessionTokenLifetimeSeconds, 600);
    assert.equal(policy.sessionExtensionLifetimeSeconds, 86400);
    assert.throws(() => loadConfig({ env: { LATCHKEY_SESSION_TOKEN_LIFETIME: '0' } }), ConfigError);
  });

  describe('sessionLifetimeSeconds, the former name of sessionExtensionLifetimeSeconds', () => {
    const load = (sources: Parameters<typeof loadConfig>[0]) => {
      const warnings: string[] = [];
      const config = loadConfig({ ...sources, warn: (line) => warnings.push(line) });
      return { value: config.sessionExtensionLifetimeSeconds, warnings };
    };

    it('is read from the environment, the flag and the file, with one warning each', () => {
      for (const sources of [
        { env: { LATCHKEY_SESSION_LIFETIME: '7200' } },
        { flags: { sessionLifetimeSeconds: '7200' } },
        { file: configFile({ sessionLifetimeSeconds: 7200 }) },
      ]) {
        const { value, warnings } = load(sources);
        assert.equal(value, 7200);
        assert.equal(warnings.length, 1, warnings.join('\n'));
        assert.match(
          warnings[0]!,
          /former name of .*(SESSION_EXTENSION_LIFETIME|session-extension-lifetime|sessionExtensionLifetimeSeconds)/,
        );
        assert.doesNotMatch(warnings[0]!, /\n/);
      }
    });

    it('gives way to the new name in the same place, and to any place that wins', () => {
      assert.equal(
        load({
          env: { LATCHKEY_SESSION_LIFETIME: '7200', LATCHKEY_SESSION_EXTENSION_LIFETIME: '3600' },
        }).value,
        3600,
      );
      // A flag wins over the environment, whatever the name.
      assert.equal(
        load({
          flags: { sessionLifetimeSeconds: '7200' },
          env: { LATCHKEY_SESSION_EXTENSION_LIFETIME: '3600' },
        }).value,
        7200,
      );
    });

    it('is checked as the new name is, and said wrong under the name given', () => {
      assert.throws(
        () => load({ env: { LATCHKEY_SESSION_LIFETIME: '5' } }),
        (error: unknown) =>
          error instanceof ConfigError &&
          error.setting === 'sessionExtensionLifetimeSeconds' &&
          /^LATCHKEY_SESSION_LIFETIME: must be an integer/.test(error.message),
      );
    });

    it('warns of nothing when only current names are used', () => {
      assert.deepEqual(load({ env: { LATCHKEY_SESSION_EXTENSION_LIFETIME: '7200' } }).warnings, []);
    });
  });

  it('takes the browser session lifetime, 12 hours by default, from the pages', () => {
    assert.equal(loadConfig({ env: {} }).browserSessionLifetimeSeconds, 12 * 3600);
    const config = loadConfig({ env: { LATCHKEY_BROWSER_SESSION_LIFETIME: '3600' } });
    assert.equal(config.browserSessionLifetimeSeconds, 3600);
    assert.equal(config.sessionExtensionLifetimeSeconds, 365 * 86400);
  });

  it('takes relative file paths in the config file from the file folder', () => {
    const file = configFile({ database: 'data/here.db' });
    assert.equal(loadConfig({ file }).database, join(space.dir, 'data/here.db'));
  });
});

describe('one configuration: precedence flags > environment > file > defaults', () => {
  const file = configFile({ port: 1111, realm: 'From file', logLevel: 'warn' });

  it('takes a flag over the environment and the file', () => {
    const config = loadConfig({ flags: { port: '3333' }, env: { LATCHKEY_PORT: '2222' }, file });
    assert.equal(config.port, 3333);
  });

  it('takes the environment over the file', () => {
    assert.equal(loadConfig({ env: { LATCHKEY_PORT: '2222' }, file }).port, 2222);
  });

  it('takes the file over the default', () => {
    const config = loadConfig({ env: {}, file });
    assert.equal(config.realm, 'From file');
    assert.equal(config.logLevel, 'warn');
  });

  it('finds the config file through LATCHKEY_CONFIG', () => {
    assert.equal(loadConfig({ env: { LATCHKEY_CONFIG: file } }).port, 1111);
  });
});

describe('latchkey reads its configuration at start-up', () => {
  const report = async (args: string[], env: Record<string, string | undefined>) =>
    (JSON.parse(await space.ok(['migrate', '--json', ...args], { env })) as { database: string })
      .database;

  it('uses --database over LATCHKEY_DATABASE over the config file', async () => {
    const file = configFile({ database: join(space.dir, 'from-file.db') });
    const fromEnv = join(space.dir, 'from-env.db');
    const fromFlag = join(space.dir, 'from-flag.db');
    const env = { LATCHKEY_CONFIG: file, LATCHKEY_DATABASE: fromEnv };
    assert.equal(await report(['--database', fromFlag], env), fromFlag);
    assert.equal(await report([], env), fromEnv);
    assert.equal(
      await report([], { ...env, LATCHKEY_DATABASE: undefined }),
      join(space.dir, 'from-file.db'),
    );
  });

  it('stops with exit code 1 and names a bad environment variable', async () => {
    const result = await space.run(['clients', 'list'], { env: { LATCHKEY_PORT: 'abc' } });
    assert.equal(result.code, 1);
    assert.equal(result.stderr, 'latchkey: LATCHKEY_PORT: must be an integer 0-65535, got "abc"\n');
  });

  it('stops with exit code 1 and names a bad setting in the config file', async () => {
    const file = configFile({ timestampWindowSeconds: -5 });
    const result = await space.run(['clients', 'list', '--config', file]);
    assert.equal(result.code, 1);
    assert.equal(
      result.stderr,
      `latchkey: timestampWindowSeconds (in ${file}): must be an integer 1-86400, got -5\n`,
    );
  });

  it('stops with exit code 2 and names a bad flag', async () => {
    const result = await space.run(['serve', '--port', '70000']);
    assert.equal(result.code, 2);
    assert.equal(result.stderr, 'latchkey: --port: must be an integer 0-65535, got "70000"\n');
  });

  it('reads --session-lifetime and LATCHKEY_SESSION_LIFETIME, former names, warning once', async () => {
    const listed = await space.run(['clients', 'list'], {
      env: { LATCHKEY_SESSION_LIFETIME: '7200' },
    });
    assert.equal(listed.code, 0, listed.stderr);
    assert.equal(
      listed.stderr,
      'Warning: LATCHKEY_SESSION_LIFETIME is a former name of LATCHKEY_SESSION_EXTENSION_LIFETIME; rename it (still read).\n',
    );
    const result = await space.run(['serve', '--session-lifetime', '5']);
    assert.equal(result.code, 2);
    assert.equal(
      result.stderr,
      'Warning: --session-lifetime is a former name of --session-extension-lifetime; rename it (still read).\n' +
        'latchkey: --session-lifetime: must be an integer 60-315360000, got "5"\n',
    );
  });

  it('stops with exit code 1 when the config file does not exist', async () => {
    const result = await space.run(['clients', 'list', '--config', join(space.dir, 'none.json')]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /^latchkey: config file .*none\.json: cannot be read \(ENOENT\)$/m);
  });
});

describe('identity settings (docs/identity.md)', () => {
  const token = 'an-admin-token-of-at-least-thirty-two-characters';

  it('defaults to local accounts', () => {
    assert.equal(loadConfig({ env: {} }).identity.source, 'local');
  });

  it('reads the OpenID Connect settings, with the documented scopes and name claims', () => {
    const config = loadConfig({
      env: {
        LATCHKEY_IDENTITY: 'oidc',
        LATCHKEY_OIDC_ISSUER: 'https://idp.example',
        LATCHKEY_OIDC_CLIENT_ID: 'latchkey',
        LATCHKEY_OIDC_CLIENT_SECRET: 'secret',
      },
    });
    assert.deepEqual(config.oidc, {
      issuer: 'https://idp.example',
      clientId: 'latchkey',
      clientSecret: 'secret',
      scopes: 'openid profile email',
      nameClaims: ['name', 'preferred_username', 'email'],
    });
  });

  it('refuses oidc without an issuer or a client id, naming what is missing', () => {
    const error = refusal(() =>
      loadConfig({
        env: { LATCHKEY_IDENTITY: 'oidc', LATCHKEY_OIDC_ISSUER: 'https://idp.example' },
      }),
    );
    assert.equal(error.setting, 'oidc.clientId');
    assert.match(error.message, /^LATCHKEY_IDENTITY: oidc needs oidc\.clientId/);
  });

  it('refuses a plain-http issuer off loopback, and accepts one on loopback', () => {
    const error = refusal(() =>
      loadConfig({ env: { LATCHKEY_OIDC_ISSUER: 'http://idp.example' } }),
    );
    assert.match(error.message, /must be an https:\/\/ URL \(http:\/\/ only on loopback\)/);
    for (const issuer of ['http://127.0.0.1:9000', 'http://localhost:9000', 'http://[::1]:9000']) {
      assert.equal(loadConfig({ env: { LATCHKEY_OIDC_ISSUER: issuer } }).oidc.issuer, issuer);
    }
  });

  it('refuses delegated without a login URL or an admin token, and a short admin token without echoing it', () => {
    const missing = refusal(() =>
      loadConfig({ env: { LATCHKEY_IDENTITY: 'delegated', LATCHKEY_ADMIN_TOKEN: token } }),
    );
    assert.equal(missing.setting, 'delegated.loginUrl');
    const short = refusal(() => loadConfig({ env: { LATCHKEY_ADMIN_TOKEN: 'short-secret' } }));
    assert.match(short.message, /^LATCHKEY_ADMIN_TOKEN: must be at least 32/);
    assert.doesNotMatch(short.message, /short-secret/);
    const config = loadConfig({
      env: {
        LATCHKEY_IDENTITY: 'delegated',
        LATCHKEY_LOGIN_URL: 'https://login.example/login?tenant=acme',
        LATCHKEY_ADMIN_TOKEN: token,
      },
    });
    assert.equal(config.delegated.loginUrl, 'https://login.example/login?tenant=acme');
  });
});
