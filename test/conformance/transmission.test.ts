// RFC 5849 §3.5 parameter transmission: the protocol parameters go in exactly one place (the
// Authorization header, a form body, or the query). Strict where the spec forbids, liberal in
// what real clients send: header parameters in any order, any whitespace after ",", the
// scheme in lower case, a realm, a form content type with a charset.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TokenCredentials } from '../../src/client/index.ts';
import { buildAuthorizationHeader, parseAuthorizationHeader } from '../../src/protocol/index.ts';
import type { Parameter, Transmission } from '../../src/protocol/index.ts';
import { send } from './support/http.ts';
import { eachCombination, PATHS, startWorld } from './support/world.ts';
import type { World } from './support/world.ts';
import {
  assertOk,
  assertProblem,
  editProtocol,
  editQuery,
  remove,
  valueOf,
} from './support/wire.ts';
import type { Wire } from './support/wire.ts';

let world: World;
before(async () => {
  world = await startWorld();
});
after(() => world.close());

/** Where a parameter moved out of `from` goes. */
const elsewhere: Record<Transmission, Transmission> = {
  header: 'query',
  body: 'query',
  query: 'header',
};

/** Adds one parameter to the given place of a wire request. */
function addTo(wire: Wire, place: Transmission, pair: Parameter): Wire {
  if (place === 'query') return editQuery(wire, (pairs) => [...pairs, pair]);
  if (place === 'header') {
    return {
      ...wire,
      headers: { ...wire.headers, Authorization: buildAuthorizationHeader([pair]) },
    };
  }
  const body = typeof wire.body === 'string' && wire.body !== '' ? `${wire.body}&` : '';
  return {
    ...wire,
    headers: { ...wire.headers, 'Content-Type': 'application/x-www-form-urlencoded' },
    body: `${body}${pair[0]}=${pair[1]}`,
  };
}

for (const { method, transmission } of eachCombination()) {
  describe(`RFC 5849 §3.5 one place per request (${method}, parameters in the ${transmission})`, () => {
    let token: TokenCredentials;
    before(async () => {
      token = await world.tokenCredentials(method, transmission);
    });
    const resource = (): Wire =>
      world.sign({ signatureMethod: method, transmission, path: PATHS.me, token });

    it(`refuses with 400 parameter_rejected a protocol parameter moved to the ${elsewhere[transmission]}`, async () => {
      const wire = resource();
      const nonce = valueOf(wire, transmission, 'oauth_nonce');
      const moved = addTo(
        editProtocol(wire, transmission, remove('oauth_nonce')),
        elsewhere[transmission],
        ['oauth_nonce', nonce],
      );
      assertProblem(await send(moved), 400, 'parameter_rejected');
    });

    it('refuses with 400 parameter_rejected a protocol parameter sent in two places', async () => {
      const wire = resource();
      const nonce = valueOf(wire, transmission, 'oauth_nonce');
      const doubled = addTo(wire, elsewhere[transmission], ['oauth_nonce', nonce]);
      assertProblem(await send(doubled), 400, 'parameter_rejected');
    });

    it('accepts an empty oauth_token on the temporary credential request (some clients send one)', async () => {
      const answer = await world.call({
        signatureMethod: method,
        transmission,
        path: PATHS.requestToken,
        httpMethod: 'POST',
        token: { token: '', secret: '' },
        protocolParameters: { oauth_callback: 'oob' },
      });
      assertOk(answer);
    });
  });
}

describe('RFC 5849 §3.5.1 Authorization header, liberal in what clients send', () => {
  let token: TokenCredentials;
  before(async () => {
    token = await world.tokenCredentials('HMAC-SHA1', 'header');
  });
  const signed = () =>
    world.sign({ signatureMethod: 'HMAC-SHA1', transmission: 'header', path: PATHS.me, token });
  const headerPairs = (wire: Wire) =>
    parseAuthorizationHeader(wire.headers['Authorization']!)!.parameters;
  const withHeader = (wire: Wire, value: string): Wire => ({
    ...wire,
    headers: { ...wire.headers, Authorization: value },
  });
  const joined = (pairs: readonly Parameter[], separator: string) =>
    pairs.map(([name, value]) => `${name}="${encodeURIComponent(value)}"`).join(separator);

  it('accepts the parameters in reverse order', async () => {
    const wire = signed();
    const reversed = [...headerPairs(wire)].reverse();
    assertOk(await send(withHeader(wire, buildAuthorizationHeader(reversed))));
  });

  it('accepts parameters separated by "," without whitespace', async () => {
    const wire = signed();
    assertOk(await send(withHeader(wire, `OAuth ${joined(headerPairs(wire), ',')}`)));
  });

  it('accepts parameters separated by "," and several spaces or tabs', async () => {
    const wire = signed();
    assertOk(await send(withHeader(wire, `OAuth ${joined(headerPairs(wire), ' ,\t  ')}`)));
  });

  it('accepts the scheme written "oauth" in lower case', async () => {
    const wire = signed();
    const value = wire.headers['Authorization']!.replace(/^OAuth /, 'oauth ');
    assertOk(await send(withHeader(wire, value)));
  });

  it('accepts a realm, which is not signed', async () => {
    const wire = signed();
    const value = wire.headers['Authorization']!.replace(/^OAuth /, 'OAuth realm="Photos", ');
    assertOk(await send(withHeader(wire, value)));
  });

  it('ignores an Authorization header of another scheme when the parameters are in the query', async () => {
    const wire = world.sign({
      signatureMethod: 'HMAC-SHA1',
      transmission: 'query',
      path: PATHS.me,
      token,
    });
    assertOk(await send(withHeader(wire, 'Basic dXNlcjpwYXNz')));
  });
});

describe('RFC 5849 §3.5.2 form-encoded body, liberal in what clients send', () => {
  it('reads a body sent as "application/x-www-form-urlencoded; charset=UTF-8" as a form', async () => {
    const token = await world.tokenCredentials('HMAC-SHA1', 'body');
    const answer = await world.call({
      signatureMethod: 'HMAC-SHA1',
      transmission: 'body',
      path: PATHS.me,
      token,
      headers: { 'Content-Type': 'application/x-www-form-urlencoded; charset=UTF-8' },
      body: 'note=caf%C3%A9',
    });
    assertOk(answer);
    assert.deepEqual(JSON.parse(answer.text).form, [['note', 'café']]);
  });

  it('signs form parameters of a request whose protocol parameters are in the header', async () => {
    const token = await world.tokenCredentials('HMAC-SHA1', 'header');
    const answer = await world.call({
      signatureMethod: 'HMAC-SHA1',
      transmission: 'header',
      httpMethod: 'POST',
      path: PATHS.me,
      token,
      headers: { 'Content-Type': 'Application/X-WWW-Form-Urlencoded;charset=utf-8' },
      body: 'a=1',
    });
    assertOk(answer);
    assert.deepEqual(JSON.parse(answer.text).form, [['a', '1']]);
  });
});
