// The console behind a load balancer: two instances on one database (two SQLite connections to
// one file here, as two `latchkey serve` would share PostgreSQL) resume each other's sessions,
// a sign-out on one ends the session on both, and a revoked admin token ends its sessions on
// every instance at the next request.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createSqliteStore } from '../../src/store/index.ts';
import { startAdmin, type AdminWorld } from '../admin/support.ts';
import { consolePlugin } from '../../src/web/console/index.ts';
import { CONSOLE, Visitor } from './support.ts';

const COOKIE = '__Host-latchkey_console';

describe('Operator console on two instances', () => {
  const directory = mkdtempSync(join(tmpdir(), 'latchkey-console-'));
  const path = join(directory, 'latchkey.db');
  let one: AdminWorld;
  let two: AdminWorld;
  before(async () => {
    one = await startAdmin(createSqliteStore({ path }), { console: consolePlugin }, '-one');
    two = await startAdmin(createSqliteStore({ path }), { console: consolePlugin }, '-two');
  });
  after(async () => {
    await one?.close();
    await two?.close();
    rmSync(directory, { recursive: true, force: true });
  });

  /** A visitor of `world` holding the session cookie `session`. */
  function holding(world: AdminWorld, session: string): Visitor {
    const visitor = new Visitor(world);
    visitor.cookies.set(COOKIE, session);
    return visitor;
  }

  it('resumes on one instance a session signed in on the other, and ends it on both', async () => {
    const visitor = new Visitor(one);
    assert.equal((await visitor.signIn(one.tokens.auditor)).status, 303);
    const session = visitor.cookies.get(COOKIE)!;
    const elsewhere = holding(two, session);
    assert.equal((await elsewhere.request('GET', `${CONSOLE}/clients`)).status, 200);
    assert.equal((await visitor.post(`${CONSOLE}/signout`, {})).status, 303);
    assert.equal((await elsewhere.request('GET', `${CONSOLE}/clients`)).status, 303);
  });

  it('ends every session of a revoked admin token, on every instance', async () => {
    const made = await one.provider.admin.tokens.add('short-lived', 'operator');
    const visitor = new Visitor(two);
    assert.equal((await visitor.signIn(made.token)).status, 303);
    const session = visitor.cookies.get(COOKIE)!;
    assert.equal((await holding(one, session).request('GET', `${CONSOLE}/clients`)).status, 200);
    await one.provider.admin.tokens.revoke('short-lived');
    for (const world of [one, two]) {
      assert.equal(
        (await holding(world, session).request('GET', `${CONSOLE}/clients`)).status,
        303,
      );
    }
  });
});
