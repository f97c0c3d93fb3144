// `latchkey clients list` through the admin API of a server on PostgreSQL: the same output as
// the command run on the database itself (no key set: secrets in clear, as the CLI does too).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createPostgresStore } from '../../src/store/index.ts';
import { workspace } from '../cli/run-cli.ts';
import { startAdmin, type AdminWorld } from '../admin/support.ts';
import { dropSchema, postgresUrl, probePostgres, runName } from '../stores/support-services.ts';
import { requirement } from '../support/requirements.ts';

const skip = requirement('PostgreSQL at 127.0.0.1:5432', await probePostgres());

describe('the CLI from anywhere (PostgreSQL)', { skip }, () => {
  const schema = runName('schema');
  const space = workspace();
  const env = { LATCHKEY_DATABASE: postgresUrl, LATCHKEY_POSTGRES_SCHEMA: schema };
  let world: AdminWorld;
  before(async () => {
    await space.ok(['migrate'], { env });
    await space.ok(['clients', 'add', '--name', 'Photo printer'], { env });
    await space.ok(['clients', 'add', '--name', 'Calendar', '--constrained-device'], { env });
    world = await startAdmin(await createPostgresStore({ connectionString: postgresUrl, schema }));
  });
  after(async () => {
    await world?.close();
    await dropSchema(schema);
    space.remove();
  });

  it('lists clients byte for byte as the local command does, as a table and as JSON', async () => {
    const remote = ['--server', world.url, '--admin-token', world.tokens.auditor];
    for (const extra of [[], ['--json']]) {
      const local = await space.run(['clients', 'list', ...extra], { env });
      const far = await space.run(['clients', 'list', ...extra, ...remote], { env });
      assert.equal(local.code, 0, local.stderr);
      assert.match(local.stdout, /Calendar/);
      assert.equal(far.stdout, local.stdout);
      assert.equal(far.code, 0, far.stderr);
    }
  });
});
