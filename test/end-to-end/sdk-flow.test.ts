// Our client SDK against our server, end to end over real HTTP: the three-step flow with the
// request/process pairs, then signed requests with awkward parameter values (spaces, "+",
// "%", "~", non-ASCII, empty values, repeated names) echoed back by /api/me exactly.
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
import type { TokenCredentials } from '../../src/client/index.ts';
import { eachCombination, startWorld } from '../conformance/support/world.ts';
import type { World } from '../conformance/support/world.ts';

let world: World;
before(async () => {
  world = await startWorld();
});
after(() => world.close());

const AWKWARD: Array<[string, string]> = [
  ['space', 'a b'],
  ['plus', '1+1=2'],
  ['percent', '100%'],
  ['tilde', '~user'],
  ['unicode', 'naïve ✓ 日本'],
  ['empty', ''],
  ['repeated', 'first'],
  ['repeated', 'second'],
  ['amp&eq=', 'x&y=z'],
];

for (const { method, transmission } of eachCombination()) {
  describe(`Client SDK end to end (${method}, parameters in the ${transmission})`, () => {
    const client = () => world.credentials(method);
    const options = () => ({ client: client(), signatureMethod: method, transmission });
    let token: TokenCredentials;

    before(async () => {
      const temporary = await processTemporaryCredentialsResponse(
        await requestTemporaryCredentials(`${world.url}/oauth/request_token`, options()),
      );
      const verifier = await world.approve(temporary);
      token = await processTokenCredentialsResponse(
        await requestTokenCredentials(`${world.url}/oauth/access_token`, {
          ...options(),
          temporary,
          verifier,
        }),
      );
    });

    it('runs the three-step flow and gets token credentials', () => {
      assert.ok(token.token.length > 0 && token.secret.length > 0);
    });

    it('builds the authorization URL with oauth_token after the endpoint query', () => {
      const url = authorizationUrl(`${world.url}/oauth/authorize?lang=en`, token);
      assert.equal(url, `${world.url}/oauth/authorize?lang=en&oauth_token=${token.token}`);
    });

    it('sends awkward query values that /api/me echoes exactly, in order', async () => {
      const query = new URLSearchParams(AWKWARD).toString();
      const api = createSigningFetch({ ...options(), token });
      const answer = await api(`${world.url}/api/me?${query}`, {
        method: transmission === 'body' ? 'POST' : 'GET',
      });
      assert.equal(answer.status, 200, await answer.clone().text());
      assert.deepEqual(((await answer.json()) as { query: unknown }).query, AWKWARD);
    });

    it('sends awkward form values that /api/me echoes exactly, in order', async () => {
      const api = createSigningFetch({ ...options(), token });
      const answer = await api(`${world.url}/api/me`, {
        method: 'POST',
        body: new URLSearchParams(AWKWARD),
      });
      assert.equal(answer.status, 200, await answer.clone().text());
      assert.deepEqual(((await answer.json()) as { form: unknown }).form, AWKWARD);
    });

    it('reports a refusal as OAuthResponseError with the status and oauth_problem', async () => {
      const temporary = await processTemporaryCredentialsResponse(
        await requestTemporaryCredentials(`${world.url}/oauth/request_token`, options()),
      );
      const response = await requestTokenCredentials(`${world.url}/oauth/access_token`, {
        ...options(),
        temporary,
        verifier: 'not-approved',
      });
      await assert.rejects(processTokenCredentialsResponse(response), (error: unknown) => {
        assert.ok(error instanceof OAuthResponseError);
        assert.equal(error.status, 401);
        assert.equal(error.problem, 'permission_unknown');
        return true;
      });
    });
  });
}
