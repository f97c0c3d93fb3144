import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as latchkey from 'latchkey';
import * as client from 'latchkey/client';
import * as middleware from 'latchkey/middleware';
import * as protocol from 'latchkey/protocol';

describe('The package public API', () => {
  it('exports the provider, the stores, the app and the middleware from "latchkey"', () => {
    for (const name of [
      'createProvider',
      'createSqliteStore',
      'buildApp',
      'buildServer',
      'latchkeyFastify',
      'latchkeyExpress',
      'createNodeVerifier',
      'OAuthError',
      'signRequest',
    ]) {
      assert.equal(typeof (latchkey as Record<string, unknown>)[name], 'function', name);
    }
  });

  it('exports the client SDK from "latchkey/client"', () => {
    assert.equal(typeof client.signRequest, 'function');
    assert.equal(typeof client.createSigningFetch, 'function');
    assert.equal(typeof client.requestTemporaryCredentials, 'function');
    for (const name of ['replaceResult', 'readResult', 'deleteResult', 'parseOutcomeResponse']) {
      assert.equal(typeof (client as Record<string, unknown>)[name], 'function', name);
    }
  });

  it('exports the middleware from "latchkey/middleware"', () => {
    assert.equal(typeof middleware.latchkeyFastify, 'function');
    assert.equal(typeof middleware.latchkeyExpress, 'function');
    assert.equal(typeof middleware.createNodeVerifier, 'function');
  });

  it('exports the protocol core from "latchkey/protocol"', () => {
    assert.equal(protocol.percentEncode('a b'), 'a%20b');
  });
});
