// Secrets at rest in PostgreSQL (RFC 5849 §4.6): what a reader of the tables sees. Client,
// token and temporary-credential secrets are sealed (AES-256-GCM, their key's id beside them),
// the verifier is a digest, and rotation re-seals every row under the new key while the store
// keeps reading the old ones.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import { createProvider } from '../../src/provider/index.ts';
import { createPostgresStore, openStore, type Store } from '../../src/store/index.ts';
import { fixedKeyring, newKey } from '../../src/store/key-file.ts';
import {
  MissingSealingKeyError,
  SealedValueError,
  verifierDigestWith,
} from '../../src/store/sealing.ts';
import { requirement } from '../support/requirements.ts';
import { newClient, newOwner, newTemporary, newToken, now } from './contract/fixtures.ts';
import { dropSchema, postgresUrl, probePostgres, runName } from './support-services.ts';

const skip = requirement('PostgreSQL at 127.0.0.1:5432', await probePostgres());

/** Every row of the tables holding secrets, as text, read with a plain client. */
async function storedText(schema: string): Promise<string> {
  const client = new pg.Client({ connectionString: postgresUrl });
  await client.connect();
  try {
    const tables = ['clients', 'temporary_credentials', 'token_credentials', 'sessions'];
    const rows = [];
    for (const table of tables) {
      const { rows: found } = await client.query(
        `SELECT * FROM ${pg.escapeIdentifier(schema)}.${table}`,
      );
      rows.push(...found);
    }
    return rows.map((row) => JSON.stringify(row)).join('\n');
  } finally {
    await client.end();
  }
}

/** An open that should have been refused: a store opened anyway is closed (the test then fails). */
function refused(opening: Promise<Store>): Promise<void> {
  return opening.then((store) => store.close());
}

describe('Secrets at rest in PostgreSQL (AES-256-GCM, RFC 5849 §4.6)', { skip }, () => {
  const schemas: string[] = [];
  after(async () => {
    for (const schema of schemas) await dropSchema(schema);
  });
  const freshSchema = () => {
    const schema = runName('schema');
    schemas.push(schema);
    return schema;
  };

  it('keeps no client, token or temporary secret and no verifier in clear, and reads them back', async () => {
    const schema = freshSchema();
    const key = newKey();
    const keyring = fixedKeyring({ current: key, keys: [key] });
    const store = await createPostgresStore({ connectionString: postgresUrl, schema, keyring });
    const provider = createProvider({ store, now: () => now });
    try {
      const client = await provider.clients.register({ name: 'Sealed app' });
      const owner = await store.owners.create(newOwner());
      const temporary = newTemporary(client.key);
      await store.temporaryCredentials.create(temporary);
      const approval = await provider.authorization.approve(temporary.token, owner.id);
      const pending = newTemporary(client.key);
      await store.temporaryCredentials.create(pending);
      const issued = newToken(client.key, owner.id);
      const exchanged = await store.temporaryCredentials.exchange(
        temporary.token,
        client.key,
        now,
        issued,
      );
      assert.equal(exchanged?.secret, temporary.secret);
      const session = await provider.sessions.start(owner, 3600);
      const rows = await storedText(schema);
      for (const secret of [
        client.secret,
        temporary.secret,
        pending.secret,
        issued.secret,
        approval.verifier,
        session.cookie,
      ]) {
        assert.equal(rows.includes(secret), false, 'a secret is readable in a row');
      }
      assert.ok(rows.includes(`"verifier":"${verifierDigestWith(key, approval.verifier)}"`));
      assert.equal(rows.includes(verifierDigestWith(undefined, approval.verifier)), false);
      assert.doesNotMatch(rows, /"secret_key_id":null/);
      // The store opens what it sealed.
      assert.equal((await store.clients.find(client.key))?.secret, client.secret);
      assert.equal((await store.tokenCredentials.find(issued.token))?.secret, issued.secret);
      assert.equal((await store.temporaryCredentials.find(pending.token))?.secret, pending.secret);
    } finally {
      await provider.close();
      await store.close();
    }
  });

  it('seals rows in clear and re-seals rows under an old key, readable throughout', async () => {
    const schema = freshSchema();
    const clear = await createPostgresStore({ connectionString: postgresUrl, schema });
    const client = await clear.clients.create(newClient());
    const owner = await clear.owners.create(newOwner());
    const token = await clear.tokenCredentials.create(newToken(client.key, owner.id));
    await clear.close();
    assert.match(await storedText(schema), new RegExp(token.secret));

    const old = newKey();
    const first = await createPostgresStore({
      connectionString: postgresUrl,
      schema,
      keyring: fixedKeyring({ current: old, keys: [old] }),
    });
    assert.equal(await first.secrets.reseal({ batchSize: 1 }), 2);
    assert.deepEqual(await first.secrets.countByKey(), new Map([[old.id, 2]]));
    await first.close();

    const fresh = newKey();
    const rotated = await createPostgresStore({
      connectionString: postgresUrl,
      schema,
      keyring: fixedKeyring({ current: fresh, keys: [fresh, old] }),
    });
    try {
      assert.equal((await rotated.clients.find(client.key))?.secret, client.secret);
      assert.equal(await rotated.secrets.reseal(), 2);
      assert.deepEqual(await rotated.secrets.countByKey(), new Map([[fresh.id, 2]]));
      assert.equal((await storedText(schema)).includes(token.secret), false);
    } finally {
      await rotated.close();
    }
    const onlyNew = await createPostgresStore({
      connectionString: postgresUrl,
      schema,
      keyring: fixedKeyring({ current: fresh, keys: [fresh] }),
    });
    try {
      assert.equal((await onlyNew.tokenCredentials.find(token.token))?.secret, token.secret);
    } finally {
      await onlyNew.close();
    }
  });

  it('refuses to open, with openStore, a schema sealed under a key it was not given (no key, another key)', async () => {
    const schema = freshSchema();
    const key = newKey();
    const keyring = fixedKeyring({ current: key, keys: [key] });
    const store = await openStore(postgresUrl, { schema, keyring });
    const client = await store.clients.create(newClient());
    await store.close();
    for (const other of [undefined, fixedKeyring({ current: newKey(), keys: [] })]) {
      await assert.rejects(
        refused(openStore(postgresUrl, { schema, keyring: other })),
        (error: unknown) => {
          assert.ok(error instanceof MissingSealingKeyError);
          assert.deepEqual(error.keyIds, [key.id]);
          return true;
        },
      );
    }
    const opened = await openStore(postgresUrl, { schema, checkKeys: false });
    try {
      await assert.rejects(opened.clients.find(client.key), SealedValueError);
    } finally {
      await opened.close();
    }
  });
});
