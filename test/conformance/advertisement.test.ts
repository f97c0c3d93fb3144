// Spec "What the service does", item 6: the server advertises the three endpoint URIs. Ours is
// one JSON document at /.well-known/oauth1-provider, with the signature methods it accepts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { send } from './support/http.ts';
import { startWorld } from './support/world.ts';
import type { World } from './support/world.ts';

let world: World;
before(async () => {
  world = await startWorld();
});
after(() => world.close());

describe('RFC 5849 §2 endpoint advertisement (spec item 6)', () => {
  const fetchAdvertisement = async () => {
    const answer = await send({ method: 'GET', url: `${world.url}/.well-known/oauth1-provider` });
    assert.equal(answer.status, 200);
    assert.match(answer.headers['content-type'] ?? '', /^application\/json/);
    return JSON.parse(answer.text) as Record<string, unknown>;
  };

  it('lists the three endpoint URIs as absolute URIs on this server', async () => {
    const advertisement = await fetchAdvertisement();
    assert.equal(advertisement['request_token_endpoint'], `${world.url}/oauth/request_token`);
    assert.equal(advertisement['authorization_endpoint'], `${world.url}/oauth/authorize`);
    assert.equal(advertisement['token_endpoint'], `${world.url}/oauth/access_token`);
  });

  it('lists HMAC-SHA1, RSA-SHA1 and PLAINTEXT among the supported signature methods', async () => {
    const advertisement = await fetchAdvertisement();
    const methods = advertisement['signature_methods_supported'] as string[];
    for (const name of ['HMAC-SHA1', 'RSA-SHA1', 'PLAINTEXT']) assert.ok(methods.includes(name));
  });

  it('advertises endpoints that answer: the temporary credential endpoint refuses an unsigned POST with 400', async () => {
    const advertisement = await fetchAdvertisement();
    const answer = await send({
      method: 'POST',
      url: advertisement['request_token_endpoint'] as string,
    });
    assert.equal(answer.status, 400);
    assert.equal(answer.fields['oauth_problem'], 'parameter_absent');
  });
});
