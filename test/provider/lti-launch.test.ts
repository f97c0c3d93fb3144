// The provider's Basic LTI launch check: the shape of a launch first (no lookup), then the
// verification every request gets; what is refused, with which problem, and what a launch
// reads as.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { signRequest } from '../../src/client/index.ts';
import type { TokenCredentials } from '../../src/client/index.ts';
import type { IncomingRequest } from '../../src/provider/index.ts';
import { startWorld } from '../conformance/support/world.ts';
import type { World } from '../conformance/support/world.ts';

let world: World;
let token: TokenCredentials;
before(async () => {
  world = await startWorld();
  token = await world.server.provider.tokens.issue({
    clientKey: world.sharedClient.key,
    ownerId: world.owner.id,
    scope: 'read',
  });
});
after(() => world.close());

const LAUNCH: [string, string][] = [
  ['lti_message_type', 'basic-lti-launch-request'],
  ['lti_version', 'LTI-1p0'],
  ['resource_link_id', 'rl-1'],
  ['roles', ' Learner , Mentor,'],
  ['user_id', ''],
];

/** A launch to https://tool.example/launch signed now, as an adapter would hand it over. */
function launch(
  fields: [string, string][] = LAUNCH,
  options: { method?: string; token?: TokenCredentials; signatureMethod?: string } = {},
): IncomingRequest {
  const signed = signRequest({
    method: 'POST',
    url: 'https://tool.example/launch',
    body: new URLSearchParams(fields),
    client: { key: world.sharedClient.key, secret: world.sharedClient.secret },
    token: options.token,
    transmission: 'body',
    signatureMethod: options.signatureMethod,
    protocolParameters: { oauth_callback: 'about:blank' },
    timestamp: world.clock.seconds(),
  });
  return {
    method: options.method ?? 'POST',
    scheme: 'https',
    host: 'tool.example',
    path: '/launch',
    query: '',
    authorization: undefined,
    contentType: 'application/x-www-form-urlencoded',
    body: signed.body as string,
    secure: true,
  };
}

describe('Provider: Basic LTI 1.1 launches', () => {
  it('reads a launch: roles split and trimmed, empty fields absent, the LMS as the caller', async () => {
    const verified = await world.server.provider.verifyLtiLaunch(launch());
    assert.deepEqual(verified.launch.roles, ['Learner', 'Mentor']);
    assert.equal(verified.launch.userId, undefined);
    assert.equal(verified.launch.resourceLinkId, 'rl-1');
    assert.equal(verified.launch.consumerKey, world.sharedClient.key);
    assert.equal(verified.caller.client.key, world.sharedClient.key);
    assert.equal(verified.caller.owner, null);
  });

  it('refuses PLAINTEXT, which carries no nonce (a launch could be replayed)', async () => {
    await assert.rejects(
      world.server.provider.verifyLtiLaunch(launch(LAUNCH, { signatureMethod: 'PLAINTEXT' })),
      { problem: 'signature_method_rejected', status: 400 },
    );
  });

  it('refuses a launch that carries a token: the LMS signs alone', async () => {
    await assert.rejects(world.server.provider.verifyLtiLaunch(launch(LAUNCH, { token })), {
      problem: 'parameter_rejected',
    });
  });

  it('refuses a field the launch is read from when it is sent twice', async () => {
    await assert.rejects(
      world.server.provider.verifyLtiLaunch(launch([...LAUNCH, ['resource_link_id', 'rl-2']])),
      { problem: 'parameter_rejected', message: /resource_link_id more than once/ },
    );
  });

  it('refuses a launch that is not a form POST before any lookup', async () => {
    await assert.rejects(world.server.provider.verifyLtiLaunch(launch(LAUNCH, { method: 'PUT' })), {
      problem: 'parameter_rejected',
      message: /POST/,
    });
  });

  it('refuses a launch from a disabled LMS (consumer_key_rejected), and takes it again once enabled', async () => {
    const clients = world.server.provider.clients;
    await clients.setDisabled(world.sharedClient.key, true);
    try {
      await assert.rejects(world.server.provider.verifyLtiLaunch(launch()), {
        problem: 'consumer_key_rejected',
        status: 401,
      });
    } finally {
      await clients.setDisabled(world.sharedClient.key, false);
    }
    await world.server.provider.verifyLtiLaunch(launch());
  });
});
