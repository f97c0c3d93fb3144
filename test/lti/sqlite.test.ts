// The LTI 1.1 suite on the embedded store: a real SQLite file in a temporary directory.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { createSqliteStore } from '../../src/store/index.ts';
import { describeLti } from './suite.ts';

const dir = mkdtempSync(join(tmpdir(), 'latchkey-lti-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describeLti('SQLite', async () => createSqliteStore({ path: join(dir, 'latchkey.db') }));
