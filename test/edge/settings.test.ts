// The edge's settings: how trusted edges are read and matched, how bad values are refused,
// and that `latchkey serve` turns them into the two endpoints.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/cli/config/config.ts';
import { edgeCheck } from '../../src/http/edge/edge-addresses.ts';
import { bin, workspace } from '../cli/run-cli.ts';

describe('forwardAuth.trustedEdges', () => {
  it('matches addresses and CIDR blocks, IPv4 peers on a dual-stack socket included', () => {
    const check = edgeCheck(['10.0.0.5', '192.168.0.0/16', 'fd00::/8']);
    assert.equal(check('10.0.0.5'), true);
    assert.equal(check('::ffff:10.0.0.5'), true);
    assert.equal(check('10.0.0.6'), false);
    assert.equal(check('192.168.40.1'), true);
    assert.equal(check('fd12::1'), true);
    assert.equal(check('fe80::1'), false);
    assert.equal(check(undefined), false);
    assert.equal(check('not an address'), false);
  });

  it('defaults to loopback only', () => {
    const config = loadConfig({ env: {} });
    const check = edgeCheck(config.forwardAuth.trustedEdges);
    assert.equal(check('127.0.0.1'), true);
    assert.equal(check('::1'), true);
    assert.equal(check('::ffff:127.0.0.1'), true);
    assert.equal(check('10.0.0.1'), false);
    assert.equal(config.forwardAuth.enabled, false);
    assert.equal(config.forwardAuth.path, '/auth/verify');
    assert.equal(config.verifyToken, undefined);
  });

  it('refuses what is not an address or a block, naming the entry', () => {
    for (const [value, message] of [
      ['10.0.0.0/33', /"10.0.0.0\/33" is not an address or CIDR block/],
      ['example.com', /"example.com" is not/],
      ['10.0.0.1/', /"10.0.0.1\/" is not/],
      ['', /must be a comma-separated list/],
    ] as const) {
      assert.throws(
        () => loadConfig({ env: { LATCHKEY_FORWARD_AUTH_TRUSTED_EDGES: value || ' , ' } }),
        message,
        value,
      );
    }
    assert.throws(
      () => loadConfig({ env: { LATCHKEY_VERIFY_TOKEN: 'short' } }),
      (error: Error) =>
        /at least 32 visible ASCII characters/.test(error.message) &&
        !error.message.includes('short'),
    );
    assert.throws(() => loadConfig({ env: { LATCHKEY_FORWARD_AUTH_PATH: '/' } }), /below \//);
  });
});

describe('latchkey serve with forward-auth and the verification API', () => {
  const space = workspace();
  let child: ReturnType<typeof spawn>;
  let url: string;

  before(async () => {
    child = spawn(process.execPath, [bin, 'serve', '--port', '0', '--forward-auth'], {
      env: {
        ...space.env,
        LATCHKEY_FORWARD_AUTH_PATH: '/edge/check',
        LATCHKEY_VERIFY_TOKEN: 'a-service-credential-of-32-characters-or-more',
      },
    });
    let stdout = '';
    url = await new Promise<string>((resolve, reject) => {
      child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk;
        const match = /^Latchkey listening on (http:\/\/\S+)$/m.exec(stdout);
        if (match !== null) resolve(match[1]!);
      });
      child.once('close', () => reject(new Error(`serve exited: ${stdout}`)));
    });
  });
  after(() => {
    child.kill('SIGKILL');
    space.remove();
  });

  it('answers the edge on the configured path and services on /verify', async () => {
    const edge = await fetch(`${url}/edge/check`, { headers: { 'x-original-uri': '/photos' } });
    assert.equal(edge.status, 401);
    assert.match(await edge.text(), /oauth_problem=parameter_absent/);
    assert.equal((await fetch(`${url}/auth/verify`)).status, 404, 'the default path is unused');

    const service = await fetch(`${url}/verify`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: 'Bearer a-service-credential-of-32-characters-or-more',
      },
      body: JSON.stringify({ method: 'GET', url: 'http://api.example.test/photos' }),
    });
    assert.equal(service.status, 200);
    const verdict = (await service.json()) as Record<string, unknown>;
    assert.equal(verdict['ok'], false);
    assert.equal(verdict['oauth_problem'], 'parameter_absent');
  });
});
