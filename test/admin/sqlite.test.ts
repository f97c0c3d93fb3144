// The admin API on the embedded store: a SQLite file.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { createSqliteStore } from '../../src/store/index.ts';
import { describeAdminOperatorRoutes } from './operator-suite.ts';
import { describeAdminApi } from './suite.ts';
import { describeAdminRotation } from './rotation-suite.ts';

const directory = mkdtempSync(join(tmpdir(), 'latchkey-admin-'));
after(() => rmSync(directory, { recursive: true, force: true }));
describeAdminApi('SQLite', async () => createSqliteStore({ path: join(directory, 'latchkey.db') }));
describeAdminOperatorRoutes('SQLite', async () =>
  createSqliteStore({ path: join(directory, 'operator.db') }),
);
describeAdminRotation('SQLite', async () =>
  createSqliteStore({ path: join(directory, 'rotation.db') }),
);
