import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { signRequest } from '../../src/client/index.ts';
import { startEchoUpstream } from '../gateway/support.ts';
import type { EchoUpstream } from '../gateway/support.ts';
import { bin, workspace } from './run-cli.ts';

describe('latchkey serve --upstream (gateway mode from the command line and config file)', () => {
  const space = workspace();
  let upstream: EchoUpstream;
  let child: ReturnType<typeof spawn>;
  let url: string;
  let ginaId: string;
  let credentials: {
    client: { key: string; secret: string };
    token: { token: string; secret: string };
  };

  before(async () => {
    upstream = await startEchoUpstream();
    const config = join(space.dir, 'latchkey.json');
    writeFileSync(
      config,
      JSON.stringify({
        gateway: {
          rules: [
            { path: '/public/*', access: 'public' },
            { path: '/admin/*', scope: 'write' },
          ],
          ownerHeader: 'X-Api-User',
          ownerNameHeader: 'X-Api-User-Name',
        },
      }),
    );
    await space.ok(['users', 'add', '--username', 'gina', '--password-stdin'], {
      input: 'correct horse battery\n',
    });
    const users = JSON.parse(await space.ok(['users', 'list', '--json'])) as { id: string }[];
    ginaId = users[0]!.id;
    const client = JSON.parse(
      await space.ok(['clients', 'add', '--name', 'Gateway CLI', '--json']),
    );
    const token = JSON.parse(
      await space.ok([
        'tokens',
        'issue',
        '--client',
        client.key,
        '--user',
        'gina',
        '--scope',
        'read',
        '--json',
      ]),
    );
    credentials = {
      client: { key: client.key, secret: client.secret },
      token: { token: token.token, secret: token.secret },
    };
    child = spawn(
      process.execPath,
      [bin, 'serve', '--port', '0', '--upstream', upstream.url, '--config', config],
      {
        env: space.env,
      },
    );
    url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
        out += chunk;
        const match = /listening on (http:\/\/\S+)/.exec(out);
        if (match) resolve(match[1]!);
      });
      child.on('close', (code) => reject(new Error(`serve exited ${code}: ${out}`)));
    });
  });

  after(async () => {
    child.kill('SIGTERM');
    await upstream.close();
    space.remove();
  });

  function signed(path: string) {
    return signRequest({ method: 'GET', url: url + path, ...credentials });
  }

  it('forwards a verified request with the identity headers the config file names', async () => {
    const request = signed('/orders?x=1');
    const response = await fetch(request.url, { headers: request.headers });
    assert.equal(response.status, 200);
    const received = upstream.received.at(-1)!;
    assert.equal(received.url, '/orders?x=1');
    assert.equal(received.headers['x-api-user'], ginaId);
    assert.equal(received.headers['x-api-user-name'], 'gina');
    assert.equal(received.headers['x-oauth-client'], credentials.client.key);
  });

  it('applies the per-path rules of the config file', async () => {
    assert.equal((await fetch(`${url}/public/logo.png`)).status, 200);
    const request = signed('/admin/users');
    const denied = await fetch(request.url, { headers: request.headers });
    assert.equal(denied.status, 403);
    assert.match(await denied.text(), /oauth_problem=permission_denied/);
  });

  it('refuses to start with a malformed rule, naming the setting', async () => {
    const result = await space.run(['serve', '--port', '0', '--upstream', upstream.url], {
      env: { LATCHKEY_GATEWAY_RULES: '[{"path": "no-slash"}]' },
    });
    assert.notEqual(result.code, 0);
    assert.match(result.stderr, /LATCHKEY_GATEWAY_RULES: .*must start with "\/"/);
  });
});
