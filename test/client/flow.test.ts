// The three-step flow from the client's side (RFC 5849 §2): the process…Response() checks on
// constructed responses, then the whole flow against the local verifying server.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  authorizationUrl,
  createSigningFetch,
  OAuthResponseError,
  processTemporaryCredentialsResponse,
  processTokenCredentialsResponse,
  requestTemporaryCredentials,
  requestTokenCredentials,
} from '../../src/client/index.ts';
import { vectors } from '../vectors/rfc5849.ts';
import { startLocalServer } from './local-server.ts';
import type { LocalServer } from './local-server.ts';

const w = vectors.walkthrough;
const { client, temporary, token, verifier } = w.credentials;
const form = { 'Content-Type': 'application/x-www-form-urlencoded' };
const respond = (body: string, status = 200) => new Response(body, { status, headers: form });
const problemBody = 'oauth_problem=consumer_key_unknown&oauth_problem_advice=Unknown%20client.';

async function rejection(promise: Promise<unknown>): Promise<OAuthResponseError> {
  const error = await promise.then(
    () => assert.fail('expected an OAuthResponseError'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof OAuthResponseError);
  return error;
}

describe('RFC 5849 §2.2 resource owner authorization URL', () => {
  it('adds oauth_token to the endpoint, as in §1.2', () => {
    assert.equal(authorizationUrl(w.authorizationEndpoint, temporary), w.authorizationUrl);
  });

  it('appends oauth_token after an existing query, leaving that query as it was', () => {
    assert.equal(
      authorizationUrl('https://photos.example.net/authorize?lang=en%20GB&flag&t=~', temporary),
      'https://photos.example.net/authorize?lang=en%20GB&flag&t=~&oauth_token=hh5s93j4hdidpola',
    );
  });

  it('percent-encodes the token', () => {
    const url = authorizationUrl(w.authorizationEndpoint, { token: 'a b+c', secret: 's' });
    assert.equal(new URL(url).searchParams.get('oauth_token'), 'a b+c');
  });
});

describe('RFC 5849 §2.1 processing the temporary credentials response', () => {
  it('returns the credentials of the §1.2 response', async () => {
    assert.deepEqual(
      await processTemporaryCredentialsResponse(respond(w.temporaryCredentialsResponse)),
      {
        ...temporary,
        callbackConfirmed: true,
      },
    );
  });

  it('throws OAuthResponseError with status and problem for an error body', async () => {
    const error = await rejection(processTemporaryCredentialsResponse(respond(problemBody, 401)));
    assert.equal(error.status, 401);
    assert.equal(error.problem, 'consumer_key_unknown');
    assert.equal(error.fields['oauth_problem_advice'], 'Unknown client.');
  });

  it('throws OAuthResponseError when oauth_callback_confirmed is missing', async () => {
    const body = 'oauth_token=hh5s93j4hdidpola&oauth_token_secret=hdhd0244k9j7ao03';
    const error = await rejection(processTemporaryCredentialsResponse(respond(body)));
    assert.equal(error.problem, undefined);
    assert.match(error.message, /oauth_callback_confirmed/);
  });

  it('throws OAuthResponseError when oauth_callback_confirmed is not "true"', async () => {
    const body = w.temporaryCredentialsResponse.replace('=true', '=false');
    const error = await rejection(processTemporaryCredentialsResponse(respond(body)));
    assert.deepEqual([error.status, error.problem], [200, undefined]);
    assert.match(error.message, /oauth_callback_confirmed is not true/);
  });

  it('throws OAuthResponseError when the token secret is missing', async () => {
    const body = 'oauth_token=hh5s93j4hdidpola&oauth_callback_confirmed=true';
    const error = await rejection(processTemporaryCredentialsResponse(respond(body)));
    assert.deepEqual([error.status, error.problem], [200, undefined]);
    assert.match(error.message, /oauth_token or oauth_token_secret missing/);
  });

  it('throws OAuthResponseError without a problem for an error that is not a form', async () => {
    const error = await rejection(
      processTemporaryCredentialsResponse(respond('<h1>%oops</h1>', 502)),
    );
    assert.equal(error.status, 502);
    assert.equal(error.problem, undefined);
  });
});

describe('RFC 5849 §2.3 processing the token credentials response', () => {
  it('returns the credentials of the §1.2 response', async () => {
    assert.deepEqual(
      await processTokenCredentialsResponse(respond(w.tokenCredentialsResponse)),
      token,
    );
  });

  it('throws OAuthResponseError with status and problem for an error body', async () => {
    const body = 'oauth_problem=verifier_invalid';
    const error = await rejection(processTokenCredentialsResponse(respond(body, 401)));
    assert.equal(error.status, 401);
    assert.equal(error.problem, 'verifier_invalid');
  });

  it('throws OAuthResponseError when oauth_token is missing', async () => {
    const error = await rejection(
      processTokenCredentialsResponse(respond('oauth_token_secret=pfkkdhi9sl3r4s00')),
    );
    assert.deepEqual([error.status, error.problem], [200, undefined]);
    assert.match(error.message, /oauth_token or oauth_token_secret missing/);
  });
});

describe('RFC 5849 §2 the three steps against a verifying server', () => {
  let server: LocalServer;
  before(async () => {
    server = await startLocalServer();
  });
  after(() => server.close());

  it('obtains temporary credentials, then token credentials, then a protected resource', async () => {
    const initiate = await requestTemporaryCredentials(`${server.origin}/initiate`, {
      client,
      callback: 'http://printer.example.com/ready',
    });
    const temp = await processTemporaryCredentialsResponse(initiate);
    const exchange = await requestTokenCredentials(`${server.origin}/token`, {
      client,
      temporary: temp,
      verifier,
    });
    const credentials = await processTokenCredentialsResponse(exchange);
    const photos = await createSigningFetch({ client, token: credentials })(
      `${server.origin}/photos`,
    );
    assert.equal(photos.status, 200);
  });

  it('sends oauth_callback=oob when no callback is given', async () => {
    await processTemporaryCredentialsResponse(
      await requestTemporaryCredentials(`${server.origin}/initiate`, { client }),
    );
    assert.equal(server.seen.at(-1)?.collected?.protocol.get('oauth_callback'), 'oob');
  });

  it('signs a requested scope sent in the form body', async () => {
    const response = await requestTemporaryCredentials(`${server.origin}/initiate`, {
      client,
      scope: 'photos read',
    });
    await processTemporaryCredentialsResponse(response);
    assert.deepEqual(server.seen.at(-1)?.collected?.form, [['scope', 'photos read']]);
  });

  it('reports the server’s problem for a wrong verifier', async () => {
    const response = await requestTokenCredentials(`${server.origin}/token`, {
      client,
      temporary,
      verifier: 'wrong',
    });
    const error = await rejection(processTokenCredentialsResponse(response));
    assert.equal(error.status, 401);
    assert.equal(error.problem, 'verifier_invalid');
  });
});
