// Faults, path by path: the pages a person uses and the token request answer an
// outage with 503 and Retry-After too (the load in outage.test.ts covers /api/me, the
// temporary credential endpoint, the authorization page, the gateway and /readyz).
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { createSigningFetch } from '../../src/client/index.ts';
import { csrfToken } from '../web/support.ts';
import { servicesSkip, useDeployment } from '../ops/support.ts';
import { eventually } from '../stores/support-faults.ts';
import { startFaultWorld } from './support.ts';
import type { FaultWorld } from './support.ts';

const skip = await servicesSkip();

/** Cookies from a response, as a Cookie header. */
function cookiesOf(response: Response): string {
  return response.headers
    .getSetCookie()
    .map((cookie) => cookie.split(';')[0])
    .join('; ');
}

describe('faults: every path answers 503 with Retry-After', { skip }, () => {
  const deployment = useDeployment();
  let world: FaultWorld;
  before(async () => {
    world = deployment.track(await startFaultWorld(deployment));
  });

  /** Runs `body` with `service` cut, then restores it and waits until the server is ready. */
  async function without(service: 'postgres' | 'redis', body: () => Promise<void>) {
    await world[service].cut();
    try {
      await body();
    } finally {
      await world[service].restore();
      await eventually(20_000, async () => {
        assert.equal((await fetch(`${world.base}/readyz`)).status, 200);
      });
    }
  }

  it('the sign-in form, while Redis (login counters) is away', async () => {
    const form = await fetch(`${world.base}/signin`);
    const cookie = cookiesOf(form);
    const body = new URLSearchParams({
      username: 'someone',
      password: 'a password',
      next: '/',
      _csrf: csrfToken(await form.text()),
    });
    await without('redis', async () => {
      const response = await fetch(`${world.base}/signin`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body,
        redirect: 'manual',
      });
      assert.deepEqual([response.status, response.headers.get('retry-after')], [503, '5']);
    });
  });

  it('a signed-in owner’s page, while PostgreSQL (sessions) is away', async () => {
    const owner = await world.provider.owners.create('paths-owner', 'a long password');
    const form = await fetch(`${world.base}/signin`);
    const signedIn = await fetch(`${world.base}/signin`, {
      method: 'POST',
      headers: { cookie: cookiesOf(form), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        username: owner.username!,
        password: 'a long password',
        next: '/account/apps',
        _csrf: csrfToken(await form.text()),
      }),
      redirect: 'manual',
    });
    assert.equal(signedIn.status, 303);
    const cookie = `${cookiesOf(form)}; ${cookiesOf(signedIn)}`;
    await without('postgres', async () => {
      const response = await fetch(`${world.base}/account/apps`, { headers: { cookie } });
      assert.deepEqual([response.status, response.headers.get('retry-after')], [503, '5']);
    });
  });

  it('the token request (§2.3), while PostgreSQL is away', async () => {
    const registered = await world.provider.clients.register({ name: 'Exchange probe' });
    const client = { key: registered.key, secret: registered.secret };
    const issued = new URLSearchParams(
      await (
        await createSigningFetch({ client })(`${world.base}/oauth/request_token`, {
          method: 'POST',
          protocolParameters: { oauth_callback: 'oob' },
        })
      ).text(),
    );
    const temporary = {
      token: issued.get('oauth_token') ?? '',
      secret: issued.get('oauth_token_secret') ?? '',
    };
    await without('postgres', async () => {
      const response = await createSigningFetch({ client, token: temporary })(
        `${world.base}/oauth/access_token`,
        { method: 'POST', protocolParameters: { oauth_verifier: 'any-verifier' } },
      );
      assert.deepEqual([response.status, response.headers.get('retry-after')], [503, '5']);
    });
  });
});
