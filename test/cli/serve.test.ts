import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { requirement } from '../support/requirements.ts';
import { bin, workspace } from './run-cli.ts';
import type { Workspace } from './run-cli.ts';

const source = (path: string) => fileURLToPath(new URL(`../../src/${path}`, import.meta.url));
const missing = ['http/app.ts', 'server.ts', 'web/index.ts'].filter((p) => !existsSync(source(p)));
const skip = requirement(
  'the HTTP app (src/http/app.ts, src/server.ts, src/web/index.ts)',
  missing.length === 0 ? undefined : `not written yet: ${missing.join(', ')}`,
);

interface Running {
  readonly child: ChildProcessWithoutNullStreams;
  stdout: string;
  stderr: string;
  readonly exited: Promise<number | null>;
  /** Resolves with the first match of `pattern` in stdout (rejects if the process ends first). */
  waitFor(pattern: RegExp): Promise<RegExpMatchArray>;
}

function start(space: Workspace, args: readonly string[]): Running {
  const child = spawn(process.execPath, [bin, ...args], { env: space.env });
  const running: Running = {
    child,
    stdout: '',
    stderr: '',
    exited: new Promise((resolve) => child.on('close', resolve)),
    waitFor: (pattern) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const match = running.stdout.match(pattern);
          if (match !== null) {
            child.stdout.off('data', check);
            resolve(match);
          }
        };
        child.stdout.on('data', check);
        void running.exited.then(() =>
          reject(new Error(`exited before ${pattern}: ${running.stdout}${running.stderr}`)),
        );
        check();
      }),
  };
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (running.stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (running.stderr += chunk));
  return running;
}

describe('latchkey serve (`npm start`)', { skip }, () => {
  const space = workspace();
  let server: Running;
  let url: string;
  before(async () => {
    server = start(space, ['serve', '--port', '0']);
    url = (await server.waitFor(/^Latchkey listening on (http:\/\/\S+)$/m))[1]!;
    await server.waitFor(/^}$/m);
  });
  after(() => {
    server.child.kill('SIGKILL');
    space.remove();
  });

  it('listens on a free port and serves the advertisement of the three endpoints', async () => {
    const response = await fetch(`${url}/.well-known/oauth1-provider`);
    assert.equal(response.status, 200);
    const served = (await response.json()) as Record<string, unknown>;
    assert.equal(served['request_token_endpoint'], `${url}/oauth/request_token`);
    assert.equal(served['authorization_endpoint'], `${url}/oauth/authorize`);
    assert.equal(served['token_endpoint'], `${url}/oauth/access_token`);
  });

  it('prints the advertisement at start-up, the same document it serves', async () => {
    const printed = JSON.parse(server.stdout.slice(server.stdout.indexOf('{'))) as unknown;
    const served = (await (await fetch(`${url}/.well-known/oauth1-provider`)).json()) as unknown;
    assert.deepEqual(printed, served);
  });

  it('closes gracefully on SIGTERM and exits 0', async () => {
    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0);
    assert.match(server.stderr, /Closed\./);
  });
});

describe(
  'latchkey authorize and request (RFC 5849 §2 flow and §3 signed requests, in a terminal)',
  { skip },
  () => {
    const space = workspace();
    let server: Running;
    let url: string;
    let client: { key: string; secret: string };

    before(async () => {
      client = JSON.parse(await space.ok(['clients', 'add', '--name', 'Terminal', '--json'])) as {
        key: string;
        secret: string;
      };
      await space.ok(['users', 'add', '--username', 'alice', '--password-stdin'], {
        input: 'alice-password',
      });
      server = start(space, ['serve', '--port', '0']);
      url = (await server.waitFor(/^Latchkey listening on (http:\/\/\S+)$/m))[1]!;
    });
    after(() => {
      server.child.kill('SIGKILL');
      space.remove();
    });

    /** The owner's side of §2.2, through the provider on the same database file. */
    async function approveAsAlice(token: string): Promise<string> {
      const { createSqliteStore } = await import('../../src/store/index.ts');
      const { createProvider } = await import('../../src/provider/index.ts');
      const { fileKeyring } = await import('../../src/store/key-file.ts');
      // The key file `serve` made beside the database (the embedded default).
      const keyring = fileKeyring(join(dirname(space.database), 'latchkey.key'));
      const store = createSqliteStore({ path: space.database, keyring });
      try {
        const provider = createProvider({ store });
        const alice = await provider.owners.get('alice');
        return (await provider.authorization.approve(token, alice.id)).displayVerifier;
      } finally {
        await store.close();
      }
    }

    it('authorize runs the flow with an oob verifier and saves the token to a private profile', async () => {
      const flow = start(space, [
        'authorize',
        '--client',
        client.key,
        '--secret',
        client.secret,
        url,
      ]);
      const [, token] = await flow.waitFor(/\/oauth\/authorize\?oauth_token=([^\s&]+)/);
      flow.child.stdin.end(`${await approveAsAlice(decodeURIComponent(token!))}\n`);
      assert.equal(await flow.exited, 0, flow.stderr);
      assert.match(flow.stdout, /Saved profile "default"/);
      assert.equal(statSync(space.profiles).mode & 0o777, 0o600);
      const saved = JSON.parse(readFileSync(space.profiles, 'utf8')) as {
        profiles: { default: { client: { key: string }; server: string } };
      };
      assert.equal(saved.profiles.default.client.key, client.key);
      assert.equal(saved.profiles.default.server, url);
    });

    it('request sends a signed GET with the saved profile and prints the body', async () => {
      const result = await space.run(['request', '/api/me']);
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stderr, /^HTTP 200/);
      const me = JSON.parse(result.stdout) as {
        owner: { name: string };
        client: { key: string };
      };
      assert.equal(me.owner.name, 'alice');
      assert.equal(me.client.key, client.key);
    });

    it('request sends -d parameters in a signed form body (protocol parameters in the body with --body)', async () => {
      const result = await space.run([
        'request',
        'POST',
        `${url}/api/me`,
        '-d',
        'status=a b+c',
        '--body',
      ]);
      assert.equal(result.code, 0, result.stderr);
      const me = JSON.parse(result.stdout) as { method: string; form: [string, string][] };
      assert.equal(me.method, 'POST');
      assert.deepEqual(me.form, [['status', 'a b+c']]);
    });

    it('request sends the -d parameters of a GET in the signed query (protocol parameters there too with --query)', async () => {
      const good = await space.run([
        'request',
        'GET',
        `${url}/api/me?x=1`,
        '-d',
        'y=~%',
        '--query',
      ]);
      assert.equal(good.code, 0, good.stderr);
      const me = JSON.parse(good.stdout) as { query: [string, string][] };
      assert.deepEqual(me.query, [
        ['x', '1'],
        ['y', '~%'],
      ]);
    });

    it('request exits 1 and prints the answer when the server refuses (a revoked token)', async () => {
      const saved = JSON.parse(readFileSync(space.profiles, 'utf8')) as {
        profiles: { default: { token: { token: string } } };
      };
      await space.ok(['tokens', 'revoke', saved.profiles.default.token.token]);
      const result = await space.run(['request', '/api/me']);
      assert.equal(result.code, 1);
      assert.match(result.stderr, /^HTTP 401/);
      assert.match(result.stdout, /oauth_problem=token_revoked/);
    });

    it('authorize reports a wrong client secret with exit code 1 and the oauth_problem', async () => {
      const result = await space.run([
        'authorize',
        '--client',
        client.key,
        '--secret',
        'wrong',
        url,
      ]);
      assert.equal(result.code, 1);
      assert.match(result.stderr, /^latchkey: The server answered 401 signature_invalid/);
    });

    it('request reports a profile that does not exist with exit code 1', async () => {
      const result = await space.run(['request', '--profile', 'nobody', '/api/me']);
      assert.equal(result.code, 1);
      assert.match(result.stderr, /no profile named "nobody"/);
    });
  },
);

describe('latchkey serve behind a proxy with an outside sign-in and no publicUrl', { skip }, () => {
  const space = workspace();
  after(() => space.remove());

  it('warns that the sign-in returns the browser to the listen address, and how to fix it', async () => {
    space.env['LATCHKEY_ADMIN_TOKEN'] = 'a'.repeat(40);
    const server = start(space, [
      'serve',
      '--port',
      '0',
      '--trust-proxy',
      '--identity',
      'delegated',
      '--login-url',
      'https://login.example/signin',
    ]);
    try {
      // The advertisement is printed last; once the process has closed, stderr is all read.
      await server.waitFor(/^}$/m);
      server.child.kill('SIGTERM');
      await server.exited;
      assert.match(
        server.stderr,
        /Warning: behind a proxy without publicUrl, delegated sign-in returns the browser to http:\/\/127\.0\.0\.1:\d+, which it may not reach; set publicUrl/,
      );
    } finally {
      server.child.kill('SIGKILL');
      await server.exited;
    }
  });
});
