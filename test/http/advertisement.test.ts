// The endpoint advertisement is built from configuration, never from what a request says its
// host is: a shared cache would otherwise keep one attacker's `Host` for every client.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { send } from '../conformance/support/http.ts';
import { startWorld } from '../conformance/support/world.ts';
import type { World } from '../conformance/support/world.ts';

async function advertised(world: World, headers: Record<string, string>) {
  const answer = await send({
    method: 'GET',
    url: `${world.url}/.well-known/oauth1-provider`,
    headers,
  });
  assert.equal(answer.status, 200);
  return { answer, document: JSON.parse(answer.text) as Record<string, string> };
}

describe('Advertisement without a public URL: the address the server listens on', () => {
  let world: World;
  before(async () => {
    world = await startWorld();
  });
  after(() => world.close());

  it('ignores the Host header', async () => {
    const { document } = await advertised(world, { Host: 'evil.example' });
    assert.equal(document['token_endpoint'], `${world.url}/oauth/access_token`);
    assert.equal(document['issuer'], world.url);
  });

  it('is not stored by a shared cache (Cache-Control: no-store)', async () => {
    const { answer } = await advertised(world, {});
    assert.equal(answer.headers['cache-control'], 'no-store');
  });
});

describe('Advertisement behind a trusted proxy without a public URL', () => {
  let world: World;
  before(async () => {
    world = await startWorld({ app: { trustProxy: true } });
  });
  after(() => world.close());

  it('ignores X-Forwarded-Host and Forwarded, which a proxy copies from the client', async () => {
    for (const headers of [
      { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'evil.example' },
      { Forwarded: 'proto=https;host=evil.example' },
    ]) {
      const { document } = await advertised(world, headers);
      assert.equal(document['request_token_endpoint'], `${world.url}/oauth/request_token`);
    }
  });
});

describe('Advertisement with a public URL', () => {
  let world: World;
  before(async () => {
    world = await startWorld({ app: { trustProxy: true, publicUrl: 'https://auth.example.com' } });
  });
  after(() => world.close());

  it('names the public URL whatever Host and X-Forwarded-Host say', async () => {
    const { answer, document } = await advertised(world, {
      Host: 'evil.example',
      'X-Forwarded-Host': 'evil.example',
    });
    assert.equal(document['token_endpoint'], 'https://auth.example.com/oauth/access_token');
    assert.equal(answer.headers['cache-control'], 'no-store');
  });
});
