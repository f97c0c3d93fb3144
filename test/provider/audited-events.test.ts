// The audit trail maps every event of `provider.events` (src/provider/audit.ts): each name
// emitted under src/provider has an entry (a mapping, or null on purpose) and each entry is
// emitted somewhere; each audited event lands in the trail with what its mapping keeps; and a
// session renewal over the token endpoint is recorded as the client's act, with its address.
import assert from 'node:assert/strict';
import { globSync, readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { auditedEvents } from '../../src/provider/audit.ts';
import type { ProviderEventName, ProviderEventPayloads } from '../../src/provider/events.ts';
import { createProvider } from '../../src/provider/index.ts';
import type { Provider } from '../../src/provider/index.ts';
import { createSqliteStore } from '../../src/store/index.ts';
import { PATHS, startWorld } from '../conformance/support/world.ts';
import type { World } from '../conformance/support/world.ts';
import { assertOk } from '../conformance/support/wire.ts';

const sourceRoot = new URL('../../src/provider/', import.meta.url);

/** Every event name an `emit(` under src/provider names (both names of a `cond ? 'a' : 'b'`). */
function emittedNames(): Set<string> {
  const names = new Set<string>();
  for (const file of globSync('**/*.ts', { cwd: sourceRoot })) {
    const source = readFileSync(new URL(file, sourceRoot), 'utf8');
    for (const call of source.matchAll(/\.emit\(\s*([^,]+),/g)) {
      const argument = call[1]!;
      const quoted = [...argument.matchAll(/'([^']+)'/g)].map((name) => name[1]!);
      assert.ok(quoted.length > 0, `${file}: an event name that is not a literal: ${argument}`);
      for (const name of quoted) names.add(name);
    }
  }
  return names;
}

describe('The audit table covers every provider event', () => {
  it('has an entry for each event emitted under src/provider, and no entry nothing emits', () => {
    const emitted = emittedNames();
    const mapped = new Set(Object.keys(auditedEvents));
    assert.deepEqual(
      [...emitted].filter((name) => !mapped.has(name)),
      [],
      'emitted with no entry in auditedEvents (src/provider/audit.ts)',
    );
    assert.deepEqual(
      [...mapped].filter((name) => !emitted.has(name)),
      [],
      'in auditedEvents but emitted nowhere',
    );
  });

  it('audits the session renewal, as it does issue and revocation', () => {
    for (const name of ['token.issued', 'token.revoked', 'token.renewed'] as const) {
      assert.notEqual(auditedEvents[name], null, name);
    }
  });
});

/** One payload per event, as its emitters send it. */
const samples: { readonly [Name in ProviderEventName]: ProviderEventPayloads[Name] } = {
  'owner.signed-in': { ownerId: 'owner-1', source: 'local' },
  'owner.sign-in-refused': { kind: 'local', reason: 'password', ownerId: 'owner-1' },
  'owner.sign-in-throttled': { limit: 30, retryAfterSeconds: 60 },
  'authorization.granted': { ownerId: 'owner-1', clientKey: 'client-1', scope: 'read' },
  'authorization.denied': { ownerId: 'owner-1', clientKey: 'client-1' },
  'authorization.automatic': {
    ownerId: 'owner-1',
    clientKey: 'client-1',
    reason: 'grant',
    scope: 'read',
  },
  'consent.remembered': { ownerId: 'owner-1', clientKey: 'client-1', scope: 'read' },
  'consent.forgotten': { ownerId: 'owner-1', clientKey: 'client-1' },
  'token.issued': { ownerId: 'owner-1', clientKey: 'client-1', scope: 'read' },
  'token.revoked': { token: 'token-1', ownerId: 'owner-1', clientKey: 'client-1' },
  'token.renewed': { token: 'token-1', ownerId: 'owner-1', clientKey: 'client-1', by: 'client' },
  'grant.revoked': { ownerId: 'owner-1', clientKey: 'client-1', count: 2 },
  'client.created': { clientKey: 'client-1', developerId: 'owner-1' },
  'client.updated': { clientKey: 'client-1', fields: ['name'] },
  'client.secret-rotated': { clientKey: 'client-1', overlapEndsAt: '2026-11-29T10:00:00.000Z' },
  'client.public-key-replaced': { clientKey: 'client-1', overlapEndsAt: null },
  'client.overlap-ended': {
    clientKey: 'client-1',
    credential: 'secret',
    endedAt: '2026-11-29T10:00:00.000Z',
  },
  'client.overlap-cut': { clientKey: 'client-1', count: 1 },
  'admin-token.created': { name: 'onboarding', role: 'operator' },
  'admin-token.revoked': { name: 'onboarding' },
  'admin.console-signed-in': { name: 'onboarding' },
  'admin.console-signed-out': { name: 'onboarding' },
  'secrets.resealed': { count: 3 },
  'webhook.created': { webhookId: 'hook-1' },
  'webhook.removed': { webhookId: 'hook-1' },
  'webhook.updated': { webhookId: 'hook-1', fields: ['events'] },
  'webhook.enabled': { webhookId: 'hook-1' },
  'webhook.disabled': { webhookId: 'hook-1' },
  'secrets.key-rotated': { previous: 'key-1', current: 'key-2' },
  'webhook.enqueued': { id: 'event-1', type: 'grant.created', count: 1 },
  'webhook.delivered': {
    deliveryId: 'delivery-1',
    webhookId: 'hook-1',
    type: 'grant.created',
    status: 200,
    error: undefined,
    recorded: true,
  },
  'webhook.failed': {
    deliveryId: 'delivery-1',
    webhookId: 'hook-1',
    type: 'grant.created',
    status: null,
    error: 'timed out',
    recorded: true,
  },
  'error.webhooks': new Error('store away'),
  'client.disabled': { clientKey: 'client-1' },
  'client.enabled': { clientKey: 'client-1' },
  'client.deleted': { clientKey: 'client-1' },
  'owner.created': { ownerId: 'owner-1', source: 'local' },
  'owner.password-set': { ownerId: 'owner-1' },
  'owner.removed': { ownerId: 'owner-1', source: 'local' },
  'credentials.imported': { records: 3, written: 2 },
  'admin.login-accepted': { subject: 'user-42' },
  'admin.login-rejected': {},
  audit: {
    at: 0,
    event: 'client.deleted',
    actor: 'operator',
    ownerId: null,
    clientKey: null,
    address: null,
    detail: '{}',
  },
  'error.audit': new Error('not stored'),
  'error.maintenance': new Error('upkeep failed'),
};

// A timeout, so an event the trail does not record fails the test instead of hanging it.
describe('Each audited event lands in the audit trail', { timeout: 30_000 }, () => {
  let provider: Provider;
  before(() => {
    provider = createProvider({ store: createSqliteStore({ path: ':memory:' }), ownsStore: true });
  });
  after(() => provider.close());

  it('stores one row per audited event with the owner, client and detail its mapping keeps, and none for the others', async () => {
    const audited = Object.entries(auditedEvents).filter(([, mapping]) => mapping !== null);
    let stored = 0;
    const all = new Promise<void>((resolve) => {
      const count = () => {
        if (++stored < audited.length) return;
        provider.events.off('audit', count);
        resolve();
      };
      provider.events.on('audit', count);
    });
    provider.audit.within({ address: '192.0.2.9' }, () => {
      for (const name of Object.keys(samples) as ProviderEventName[]) {
        // Each with its own payload: the emitter is typed per name.
        (provider.events.emit as (name: string, payload: unknown) => boolean)(name, samples[name]);
      }
    });
    await all;
    const rows = await provider.audit.list({});
    assert.deepEqual(rows.map((row) => row.event).sort(), audited.map(([name]) => name).sort());
    for (const [name, mapping] of audited) {
      const row = rows.find((entry) => entry.event === name)!;
      const facts = samples[name as ProviderEventName] as Record<string, unknown>;
      assert.equal(row.address, '192.0.2.9', name);
      assert.equal(row.ownerId, mapping!.ownerId === undefined ? null : 'owner-1', name);
      assert.equal(row.clientKey, mapping!.clientKey === undefined ? null : 'client-1', name);
      const kept = Object.fromEntries(
        (mapping!.detail ?? [])
          .filter((field) => facts[field] !== undefined)
          .map((field) => [field, facts[field]]),
      );
      assert.deepEqual(JSON.parse(row.detail), kept, name);
    }
    assert.equal(rows.find((row) => row.event === 'token.renewed')?.actor, 'client');
  });
});

describe('A session renewal over the token endpoint is audited', { timeout: 30_000 }, () => {
  let world: World;
  before(async () => {
    world = await startWorld();
    await world.server.provider.clients.update(world.sharedClient.key, { sessionExtension: true });
  });
  after(() => world?.close());

  it('records token.renewed as the client, with the owner, the client and its address', async () => {
    const { provider } = world.server;
    const temporary = await world.temporary('HMAC-SHA1', 'header');
    const verifier = await world.approve(temporary);
    const answer = await world.exchange('HMAC-SHA1', 'header', temporary, verifier);
    assertOk(answer);
    const token = {
      token: answer.fields['oauth_token']!,
      secret: answer.fields['oauth_token_secret']!,
    };
    const recorded = new Promise<void>((resolve) => {
      const listener = (entry: { readonly event: string }) => {
        if (entry.event !== 'token.renewed') return;
        provider.events.off('audit', listener);
        resolve();
      };
      provider.events.on('audit', listener);
    });
    assertOk(
      await world.call({
        signatureMethod: 'HMAC-SHA1',
        transmission: 'header',
        path: PATHS.accessToken,
        httpMethod: 'POST',
        token,
        protocolParameters: { oauth_session_handle: answer.fields['oauth_session_handle']! },
      }),
    );
    await recorded;
    const rows = (await provider.audit.list({})).filter((row) => row.event === 'token.renewed');
    assert.equal(rows.length, 1);
    const [row] = rows;
    assert.equal(row!.actor, 'client');
    assert.equal(row!.ownerId, world.owner.id);
    assert.equal(row!.clientKey, world.sharedClient.key);
    assert.match(row!.address ?? '', /127\.0\.0\.1/);
    assert.equal(JSON.stringify(rows).includes(token.secret), false);
  });
});
