// Rotation with overlap through the admin API, run on each store (sqlite.test.ts,
// postgres.test.ts): the previous secret or public key signs requests beside the new one until
// the overlap ends, then is refused with advice; the overlaps read and ended; the rotation and
// the end of its overlap in the audit trail; and the attacks on the new body fields. The
// provider's clock is moved, never waited for.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { signRequest } from '../../src/client/index.ts';
import type { Store } from '../../src/store/index.ts';
import { call, startAdmin, type AdminWorld } from './support.ts';

const HOUR = 3_600_000;
const RSA_PRIVATE = readFileSync(new URL('../fixtures/rsa-private.pem', import.meta.url), 'utf8');
const RSA_PUBLIC = readFileSync(new URL('../fixtures/rsa-public.pem', import.meta.url), 'utf8');

export function describeAdminRotation(
  label: string,
  makeStore: () => Promise<Store>,
  skip?: string | false,
) {
  describe(`Admin API: rotation with overlap (${label})`, { skip }, () => {
    let world: AdminWorld;
    before(async () => {
      world = await startAdmin(await makeStore(), {}, '-rotation');
    });
    after(() => world?.close());

    /** `/api/me` signed by the client with `secret` (or `privateKey`), at the world's time. */
    async function me(key: string, signer: { secret?: string; privateKey?: string }) {
      const signed = signRequest({
        method: 'GET',
        url: `${world.url}/api/me`,
        client: { key, ...signer },
        signatureMethod: signer.privateKey === undefined ? 'HMAC-SHA1' : 'RSA-SHA1',
        timestamp: Math.floor(world.now() / 1000),
      });
      const response = await fetch(signed.url, { headers: signed.headers });
      const text = await response.text();
      return {
        status: response.status,
        advice: new URLSearchParams(text).get('oauth_problem_advice') ?? '',
      };
    }

    async function register(body: object) {
      const made = await call(world, 'POST', '/admin/clients', { as: 'operator', body });
      assert.equal(made.status, 201, made.text);
      return made.body as { key: string; secret: string };
    }

    it('keeps the previous secret valid for the overlap asked, then refuses it with advice; both moments audited', async () => {
      const client = await register({ name: 'Overlapping' });
      const rotated = await call(world, 'POST', `/admin/clients/${client.key}/rotate-secret`, {
        as: 'operator',
        body: { overlapSeconds: 86_400 },
      });
      assert.equal(rotated.status, 200, rotated.text);
      const fresh = rotated.body.secret as string;
      assert.notEqual(fresh, client.secret);
      assert.equal((await me(client.key, { secret: client.secret })).status, 200);
      assert.equal((await me(client.key, { secret: fresh })).status, 200);

      const overlaps = await call(world, 'GET', `/admin/clients/${client.key}/overlaps`, {
        as: 'auditor',
      });
      assert.equal(overlaps.status, 200);
      const until = new Date(world.now() + 24 * HOUR).toISOString();
      assert.deepEqual(
        overlaps.body.overlaps.map((o: { credential: string; until: string }) => [
          o.credential,
          o.until,
        ]),
        [['secret', until]],
      );
      assert.doesNotMatch(overlaps.text, new RegExp(client.secret));

      world.advance(24 * HOUR);
      const refused = await me(client.key, { secret: client.secret });
      assert.equal(refused.status, 401);
      assert.match(refused.advice, /previous secret, replaced at .* refused since/);
      assert.equal((await me(client.key, { secret: fresh })).status, 200);
      await world.provider.maintain();
      const trail = await call(world, 'GET', `/admin/audit?client=${client.key}`, {
        as: 'auditor',
      });
      const events = (trail.body.items as { event: string; detail: Record<string, unknown> }[])
        .filter((e) => e.event.startsWith('client.') && e.event !== 'client.created')
        .map((e) => [e.event, e.detail.overlapEndsAt ?? e.detail.endedAt]);
      assert.deepEqual(events, [
        ['client.overlap-ended', until],
        ['client.secret-rotated', until],
      ]);
    });

    it('keeps a replaced public key valid for the overlap of the change', async () => {
      const client = await register({
        name: 'Key roll',
        signatureMethods: ['RSA-SHA1'],
        publicKey: RSA_PUBLIC,
      });
      const next = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const changed = await call(world, 'PATCH', `/admin/clients/${client.key}`, {
        as: 'operator',
        headers: { 'if-match': '*' },
        body: {
          publicKey: next.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
          overlapSeconds: 3600,
        },
      });
      assert.equal(changed.status, 200, changed.text);
      const nextPrivate = next.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
      assert.equal((await me(client.key, { privateKey: RSA_PRIVATE })).status, 200);
      assert.equal((await me(client.key, { privateKey: nextPrivate })).status, 200);
      world.advance(HOUR);
      const refused = await me(client.key, { privateKey: RSA_PRIVATE });
      assert.equal(refused.status, 401);
      assert.match(refused.advice, /previous public key/);
      assert.equal((await me(client.key, { privateKey: nextPrivate })).status, 200);
    });

    it('ends the overlaps at once for an operator, not for support', async () => {
      const client = await register({ name: 'Leaked' });
      await call(world, 'POST', `/admin/clients/${client.key}/rotate-secret`, {
        as: 'operator',
        body: { overlapSeconds: 86_400 },
      });
      const path = `/admin/clients/${client.key}/end-overlaps`;
      assert.equal((await call(world, 'POST', path, { as: 'support' })).status, 403);
      assert.equal((await me(client.key, { secret: client.secret })).status, 200);
      const ended = await call(world, 'POST', path, { as: 'operator' });
      assert.equal(ended.status, 200, ended.text);
      assert.deepEqual(ended.body.overlaps, []);
      assert.equal((await me(client.key, { secret: client.secret })).status, 401);
      // Replayed: the same answer, and the trail records one cut.
      const again = await call(world, 'POST', path, { as: 'operator' });
      assert.equal(again.status, 200);
      assert.deepEqual(again.body.overlaps, []);
      const trail = await call(world, 'GET', `/admin/audit?client=${client.key}`, {
        as: 'auditor',
      });
      const cuts = (trail.body.items as { event: string }[]).filter(
        (e) => e.event === 'client.overlap-cut',
      );
      assert.equal(cuts.length, 1);
    });

    it('refuses a forged overlap with 400 and changes nothing', async () => {
      const client = await register({ name: 'Forged overlaps' });
      const path = `/admin/clients/${client.key}/rotate-secret`;
      for (const body of [
        { overlapSeconds: -1 },
        { overlapSeconds: 30 * 86_400 + 1 },
        { overlapSeconds: '24h' },
        { overlapSeconds: 1.5 },
        { overlapSeconds: 60, secret: 'chosen' },
        [60],
      ]) {
        const answer = await call(world, 'POST', path, { as: 'operator', body });
        assert.equal(answer.status, 400, `${JSON.stringify(body)}: ${answer.text}`);
        assert.match(answer.headers.get('content-type') ?? '', /^application\/problem\+json/);
      }
      const notJson = await call(world, 'POST', path, {
        as: 'operator',
        raw: 'overlapSeconds=60',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      assert.equal(notJson.status, 415);
      const patched = await call(world, 'PATCH', `/admin/clients/${client.key}`, {
        as: 'operator',
        headers: { 'if-match': '*' },
        body: { overlapSeconds: 99_999_999 },
      });
      assert.equal(patched.status, 400);
      assert.equal((await me(client.key, { secret: client.secret })).status, 200);
      const unknown = await call(world, 'GET', '/admin/clients/no-such-client/overlaps', {
        as: 'auditor',
      });
      assert.equal(unknown.status, 404);
    });

    it('still rotates with no body at all, ending the old secret at once', async () => {
      const client = await register({ name: 'No body' });
      const rotated = await call(world, 'POST', `/admin/clients/${client.key}/rotate-secret`, {
        as: 'operator',
      });
      assert.equal(rotated.status, 200, rotated.text);
      assert.equal((await me(client.key, { secret: client.secret })).status, 401);
      assert.equal((await me(client.key, { secret: rotated.body.secret })).status, 200);
    });
  });
}
