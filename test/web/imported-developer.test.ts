// README "Moving from another provider": after an import, the account a client record's
// `developer` field names (docs/import.md) sees and edits that app in the developer portal;
// other accounts do not see it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startWeb, text } from './support.ts';
import type { WebWorld } from './support.ts';

describe('an imported app in the developer portal', () => {
  let world: WebWorld;
  before(async () => {
    world = await startWeb();
    await world.owner('dana');
    await world.owner('erin');
  });
  after(() => world.close());

  it('belongs to the account its record’s developer field names', async () => {
    const session = world.provider.transfer.importer();
    const item = {
      line: 1,
      value: {
        kind: 'client',
        key: 'legacy-app',
        secret: 'legacy secret',
        name: 'Legacy App',
        developer: { username: 'dana' },
      },
    };
    assert.equal(session.check(item), 'client');
    assert.deepEqual(await session.resolve(), []);
    const record = session.record(item, 'client')!;
    const [outcome] = await session.write([{ line: 1, record }]);
    assert.equal(outcome?.outcome, 'created');

    const dana = world.browser();
    await dana.signIn('dana');
    assert.match(text((await dana.get('/developer')).body), /Legacy App/);
    assert.equal((await dana.get('/developer/apps/legacy-app/edit')).statusCode, 200);
    const erin = world.browser();
    await erin.signIn('erin');
    assert.doesNotMatch(text((await erin.get('/developer')).body), /Legacy App/);
  });
});
