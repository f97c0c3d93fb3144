// A server whose certificate this machine does not trust: the remote command says so in one
// line and exits 1, never sending the admin token on.
import assert from 'node:assert/strict';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { selfSignedCertificate } from '../conformance/support/network.ts';
import { workspace } from '../cli/run-cli.ts';
import { requirement } from '../support/requirements.ts';

const { certificate, problem } = selfSignedCertificate();

describe('the CLI from anywhere: TLS', { skip: requirement('openssl', problem) }, () => {
  const space = workspace();
  let requests = 0;
  const server = createServer({ ...certificate }, (_request, response) => {
    requests += 1;
    response.end('{}');
  });
  before(() => new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve)));
  after(() => {
    server.close();
    space.remove();
  });

  it('refuses an untrusted certificate in one line', async () => {
    const { port } = server.address() as AddressInfo;
    const run = await space.run([
      'clients',
      'list',
      '--server',
      `https://127.0.0.1:${port}`,
      '--admin-token',
      'lka_secret',
    ]);
    assert.equal(run.code, 1);
    assert.match(
      run.stderr,
      /^latchkey: https:\/\/127\.0\.0\.1:\d+: cannot be reached \(.*certificate.*\)\n$/,
    );
    assert.equal(requests, 0);
  });
});
