// Contract: ClientStore and OwnerStore (src/store/types.ts), including the cascades that
// remove every credential issued to a removed client or for a removed owner.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StoreConflictError, type Store } from '../../../src/store/index.ts';
import {
  createParties,
  grantFor,
  minute,
  newClient,
  newExternalOwner,
  newOwner,
  newTemporary,
  newToken,
  now,
  unique,
} from './fixtures.ts';

export function describeClients(store: () => Store): void {
  describe('RFC 5849 §1.1 client credentials: clients', () => {
    it('returns a created client from find with every field as given', async () => {
      const given = newClient({
        publicKey: 'PEM',
        constrainedDevice: true,
        verified: true,
        sessionExtension: true,
        rememberConsent: 'same-scope',
        tokenResponseIdentity: true,
        scopes: ['read', 'write'],
      });
      const created = await store().clients.create(given);
      assert.equal(typeof created.createdAt, 'number');
      // A new client has the server's rate limits until an operator gives it its own.
      assert.deepEqual(created, {
        ...given,
        requestsPerMinute: null,
        failuresPerMinute: null,
        createdAt: created.createdAt,
      });
      assert.deepEqual(await store().clients.find(given.key), created);
    });

    it('remembers one consent per owner and client, keeps its first moment, and forgets it', async () => {
      const client = await store().clients.create(newClient());
      const owner = await store().owners.create(newOwner());
      const consents = store().consents;
      await consents.remember({
        ownerId: owner.id,
        clientKey: client.key,
        scope: 'read',
        since: now,
      });
      await consents.remember({
        ownerId: owner.id,
        clientKey: client.key,
        scope: 'read write',
        since: now + minute,
      });
      assert.deepEqual(await consents.find(owner.id, client.key), {
        ownerId: owner.id,
        clientKey: client.key,
        scope: 'read write',
        since: now,
      });
      assert.equal((await consents.list(owner.id)).length, 1);
      assert.equal(await consents.forget(owner.id, client.key), true);
      assert.equal(await consents.forget(owner.id, client.key), false);
      assert.equal(await consents.find(owner.id, client.key), undefined);
      // Removing the client removes what was remembered for it.
      await consents.remember({
        ownerId: owner.id,
        clientKey: client.key,
        scope: 'read',
        since: now,
      });
      await store().clients.remove(client.key);
      assert.deepEqual(await consents.list(owner.id), []);
    });

    it('stores a client’s own rate limits, and clears them back to the default', async () => {
      const created = await store().clients.create(newClient());
      const limited = await store().clients.update(created.key, {
        requestsPerMinute: 600,
        failuresPerMinute: 20,
      });
      assert.equal(limited?.requestsPerMinute, 600);
      assert.equal(limited?.failuresPerMinute, 20);
      const cleared = await store().clients.update(created.key, { requestsPerMinute: null });
      assert.equal(cleared?.requestsPerMinute, null);
      assert.equal((await store().clients.find(created.key))?.failuresPerMinute, 20);
    });

    it('stores a client’s scope ceiling, none when not given, and clears it', async () => {
      const { scopes: _omitted, ...given } = newClient();
      const created = await store().clients.create(given);
      assert.deepEqual(created.scopes, []);
      const narrowed = await store().clients.update(created.key, { scopes: ['write', 'read'] });
      assert.deepEqual(narrowed, { ...created, scopes: ['write', 'read'] });
      assert.deepEqual(await store().clients.find(created.key), narrowed);
      const cleared = await store().clients.update(created.key, { scopes: [] });
      assert.deepEqual(cleared, created);
    });

    it('leaves the session extension off when it is not given', async () => {
      const { sessionExtension: _omitted, ...given } = newClient();
      const created = await store().clients.create(given);
      assert.equal(created.sessionExtension, false);
    });

    it('keeps the creation time it is given (an imported client), and a disabled flag', async () => {
      const given = newClient({ createdAt: 1_500_000_000_123, disabled: true });
      const created = await store().clients.create(given);
      assert.equal(created.createdAt, 1_500_000_000_123);
      assert.equal(created.disabled, true);
      assert.deepEqual(await store().clients.find(given.key), created);
    });

    it('disables and enables a client through update, keeping every other field', async () => {
      const created = await store().clients.create(newClient());
      assert.equal(created.disabled, false);
      const disabled = await store().clients.update(created.key, { disabled: true });
      assert.deepEqual(disabled, { ...created, disabled: true });
      const enabled = await store().clients.update(created.key, { disabled: false });
      assert.deepEqual(enabled, created);
    });

    it('refuses a second client with the same key with StoreConflictError', async () => {
      const given = newClient();
      await store().clients.create(given);
      await assert.rejects(
        store().clients.create(newClient({ key: given.key })),
        StoreConflictError,
      );
    });

    it('finds nothing for an unknown key', async () => {
      assert.equal(await store().clients.find(unique('missing')), undefined);
    });

    it('lists the clients a developer registered, and only those', async () => {
      const developerId = unique('developer');
      const mine = [newClient({ developerId }), newClient({ developerId })];
      for (const client of [...mine, newClient()]) await store().clients.create(client);
      const listed = await store().clients.list({ developerId });
      assert.deepEqual(listed.map((client) => client.key).sort(), mine.map((c) => c.key).sort());
    });

    it('lists every client when no filter is given', async () => {
      const created = await store().clients.create(newClient());
      const listed = await store().clients.list();
      assert.ok(listed.some((client) => client.key === created.key));
    });

    it('updates only the fields it is given', async () => {
      const created = await store().clients.create(newClient());
      const changes = {
        name: 'Renamed',
        website: null,
        callbacks: ['https://a.example/cb', 'https://b.example/cb'],
        verified: true,
      };
      const updated = await store().clients.update(created.key, changes);
      assert.deepEqual(updated, { ...created, ...changes });
      assert.deepEqual(await store().clients.find(created.key), updated);
    });

    it('updates nothing and returns undefined for an unknown key', async () => {
      assert.equal(await store().clients.update(unique('missing'), { name: 'x' }), undefined);
    });

    it('removes a client once: true, then false', async () => {
      const created = await store().clients.create(newClient());
      assert.equal(await store().clients.remove(created.key), true);
      assert.equal(await store().clients.find(created.key), undefined);
      assert.equal(await store().clients.remove(created.key), false);
    });

    it('removes every temporary and token credential issued to a removed client', async () => {
      const { clientKey, ownerId } = await createParties(store());
      const temporary = newTemporary(clientKey);
      await store().temporaryCredentials.create(temporary);
      const token = await store().tokenCredentials.create(newToken(clientKey, ownerId));
      await store().clients.remove(clientKey);
      assert.equal(await store().temporaryCredentials.find(temporary.token), undefined);
      assert.equal(await store().tokenCredentials.find(token.token), undefined);
      assert.notEqual(await store().owners.findById(ownerId), undefined);
    });
  });
}

export function describeOwners(store: () => Store): void {
  describe('RFC 5849 §1.1 resource owners: owners', () => {
    it('returns a created owner by id and by username', async () => {
      const given = newOwner();
      const created = await store().owners.create({ ...given, createdAt: now });
      assert.deepEqual(created, { ...given, createdAt: now });
      assert.deepEqual(await store().owners.findById(given.id), created);
      assert.deepEqual(await store().owners.findByUsername(given.username!), created);
    });

    it('sets the creation time itself when none is given', async () => {
      const created = await store().owners.create(newOwner());
      assert.equal(typeof created.createdAt, 'number');
    });

    it('refuses a second owner with the same username with StoreConflictError', async () => {
      const first = await store().owners.create(newOwner());
      const second = { ...newOwner(), username: first.username };
      await assert.rejects(store().owners.create(second), StoreConflictError);
    });

    it('refuses a second owner with the same id with StoreConflictError', async () => {
      const first = await store().owners.create(newOwner());
      await assert.rejects(
        store().owners.create({ ...newOwner(), id: first.id }),
        StoreConflictError,
      );
    });

    it('finds nothing for an unknown id or username', async () => {
      assert.equal(await store().owners.findById(unique('missing')), undefined);
      assert.equal(await store().owners.findByUsername(unique('missing')), undefined);
    });

    it('lists created owners', async () => {
      const created = await store().owners.create(newOwner());
      assert.ok((await store().owners.list()).some((owner) => owner.id === created.id));
    });

    it('replaces the password hash of a known owner only', async () => {
      const created = await store().owners.create(newOwner());
      assert.equal(await store().owners.setPasswordHash(created.id, 'new-hash'), true);
      assert.equal((await store().owners.findById(created.id))?.passwordHash, 'new-hash');
      assert.equal(await store().owners.setPasswordHash(unique('missing'), 'x'), false);
    });

    it('removes an owner once: true, then false', async () => {
      const created = await store().owners.create(newOwner());
      assert.equal(await store().owners.remove(created.id), true);
      assert.equal(await store().owners.findById(created.id), undefined);
      assert.equal(await store().owners.remove(created.id), false);
    });

    it('keeps an external owner with no username and no password, found by its identity', async () => {
      const given = newExternalOwner('delegated');
      const created = await store().owners.create({ ...given, createdAt: now });
      assert.deepEqual(created, { ...given, createdAt: now });
      const identity = { source: 'delegated', subject: given.subject } as const;
      assert.deepEqual(await store().owners.findByIdentity(identity), created);
      assert.deepEqual(await store().owners.findByIdentity({ ...identity, issuer: null }), created);
      assert.equal(
        await store().owners.findByIdentity({ source: 'oidc', subject: given.subject }),
        undefined,
      );
    });

    it('tells OpenID Connect owners apart by issuer: the same sub at two issuers is two owners', async () => {
      const first = await store().owners.create(newExternalOwner('oidc', 'https://one.example'));
      const second = await store().owners.create({
        ...newExternalOwner('oidc', 'https://two.example'),
        subject: first.subject,
      });
      const find = (issuer: string) =>
        store().owners.findByIdentity({ source: 'oidc', issuer, subject: first.subject });
      assert.equal((await find('https://one.example'))?.id, first.id);
      assert.equal((await find('https://two.example'))?.id, second.id);
      assert.equal(await find('https://three.example'), undefined);
    });

    it('refuses a second owner with the same (source, issuer, subject) with StoreConflictError', async () => {
      for (const source of ['delegated', 'oidc'] as const) {
        const first = await store().owners.create(newExternalOwner(source));
        await assert.rejects(
          store().owners.create({ ...newExternalOwner(source), subject: first.subject }),
          StoreConflictError,
        );
      }
    });

    it('keeps many external owners, none of which has a username', async () => {
      const a = await store().owners.create(newExternalOwner());
      const b = await store().owners.create(newExternalOwner());
      assert.notEqual(a.id, b.id);
    });

    it('renames a known owner only', async () => {
      const created = await store().owners.create(newExternalOwner());
      assert.equal(await store().owners.rename(created.id, 'Ada King'), true);
      assert.equal((await store().owners.findById(created.id))?.name, 'Ada King');
      assert.equal(await store().owners.rename(unique('missing'), 'x'), false);
    });

    it('removes the credentials and sessions of a removed owner, keeping the client', async () => {
      const { clientKey, ownerId } = await createParties(store());
      const temporary = newTemporary(clientKey);
      await store().temporaryCredentials.create(temporary);
      await store().temporaryCredentials.authorize(temporary.token, grantFor(ownerId), now);
      const token = await store().tokenCredentials.create(newToken(clientKey, ownerId));
      const session = { id: unique('session'), ownerId, createdAt: now, expiresAt: now + minute };
      await store().sessions.create(session);
      await store().owners.remove(ownerId);
      assert.equal(await store().temporaryCredentials.find(temporary.token), undefined);
      assert.equal(await store().tokenCredentials.find(token.token), undefined);
      assert.equal(await store().sessions.find(session.id, now), undefined);
      assert.notEqual(await store().clients.find(clientKey), undefined);
    });
  });
}
