// The real `latchkey serve` (SQLite store) with its clock stepped ten minutes forward, back,
// and returned each time, through libfaketime (Debian's libfaketime: LD_PRELOAD, the offset
// read from a file the test rewrites; the monotonic clock left alone, as a real step leaves
// it). Upkeep runs while the clock is wrong (the test waits for two rounds of it, seen as
// last-use times written). After each return, a nonce used before the step is refused and
// fresh requests are accepted. test/faults/clock-step.test.ts covers the same through the
// provider's injectable clocks.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { signRequest } from '../../src/client/index.ts';
import type { ClientCredentials, TokenCredentials } from '../../src/client/index.ts';
import { createProvider } from '../../src/provider/index.ts';
import { createSqliteStore } from '../../src/store/index.ts';
import { fixedKeyring, keySetOf } from '../../src/store/key-file.ts';
import { randomBytes } from 'node:crypto';
import type { Store } from '../../src/store/index.ts';
import { bin, workspace } from '../cli/run-cli.ts';
import { requirement } from '../support/requirements.ts';
import { within } from '../stores/support-faults.ts';

const LIBFAKETIME = '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1';
const skip = requirement(
  `libfaketime (${LIBFAKETIME}; bash .ci/install-faults.sh)`,
  existsSync(LIBFAKETIME) ? undefined : 'not installed',
);

const STEP_SECONDS = 600;
/** The sealing key shared by the server and this process's store (the server seals what the test reads). */
const secretKey = randomBytes(32).toString('base64url');
/** Upkeep runs every 5 s: two rounds take about 10 s; past this the test fails as hung. */
const HANG_MS = 60_000;

describe(
  'latchkey serve with its clock stepped ±10 minutes and back (libfaketime)',
  { skip },
  () => {
    const space = workspace();
    const offsetFile = join(space.dir, 'faketime');
    let store: Store;
    let client: ClientCredentials;
    const tokens: TokenCredentials[] = [];
    let child: ReturnType<typeof spawn>;
    let exited: Promise<unknown[]>;
    let url: string;
    let sent = 0;

    /** Steps the server's clock: `seconds` ahead of (or behind) the real time. */
    const step = (seconds: number) =>
      writeFileSync(offsetFile, `${seconds >= 0 ? '+' : ''}${seconds}\n`);

    before(async () => {
      step(0);
      store = createSqliteStore({
        path: space.database,
        checkpointIntervalMs: 0,
        keyring: fixedKeyring(keySetOf(secretKey)),
      });
      const provider = createProvider({ store });
      const registered = await provider.clients.register({ name: 'Clock probe' });
      const owner = await provider.owners.create('clock-owner', 'a long password');
      client = { key: registered.key, secret: registered.secret };
      for (let i = 0; i < 5; i++) {
        const issued = await provider.tokens.issue({ clientKey: client.key, ownerId: owner.id });
        tokens.push({ token: issued.token, secret: issued.secret });
      }
      child = spawn(process.execPath, [bin, 'serve', '--port', '0'], {
        env: {
          ...space.env,
          LATCHKEY_SECRET_KEY: secretKey,
          LD_PRELOAD: LIBFAKETIME,
          FAKETIME_TIMESTAMP_FILE: offsetFile,
          FAKETIME_NO_CACHE: '1',
          FAKETIME_DONT_FAKE_MONOTONIC: '1',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      exited = once(child, 'exit');
      let output = '';
      child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
      url = await within(
        HANG_MS,
        new Promise<string>((resolve, reject) => {
          child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
            output += chunk;
            const match = /^Latchkey listening on (\S+)$/m.exec(output);
            if (match !== null) resolve(match[1]!);
          });
          void exited.then(() => reject(new Error(`serve ended: ${output}`)));
        }),
      );
    });
    after(async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await store.close();
      space.remove();
    });

    /** A request signed by a client whose clock is `skew` seconds off the real time. */
    function signed(token: TokenCredentials, skew = 0, nonce = `fresh-${++sent}`) {
      return signRequest({
        method: 'GET',
        url: `${url}/api/me`,
        client,
        token,
        nonce,
        timestamp: Math.floor(Date.now() / 1000) + skew,
      });
    }

    async function send(request: ReturnType<typeof signed>) {
      const response = await fetch(request.url, { headers: request.headers });
      const body = await response.text();
      return [response.status, new URLSearchParams(body).get('oauth_problem')] as const;
    }

    /** Waits until upkeep has written the last use of `token` (one round of it has run). */
    async function lastUseWritten(token: TokenCredentials) {
      await within(
        HANG_MS,
        (async () => {
          while (((await store.tokenCredentials.find(token.token))?.lastUsedAt ?? null) === null) {
            await sleep(100);
          }
        })(),
      );
    }

    /**
     * With the clock `seconds` off: two rounds of upkeep seen to run (a request accepted at the
     * stepped time, its last use written, twice: the first round's purges ran before the second).
     */
    async function upkeepWhileStepped(
      seconds: number,
      first: TokenCredentials,
      second: TokenCredentials,
    ) {
      step(seconds);
      for (const token of [first, second]) {
        assert.deepEqual(await send(signed(token, seconds)), [200, null]);
        await lastUseWritten(token);
      }
      step(0);
    }

    for (const [name, seconds, first, second] of [
      ['forward', STEP_SECONDS, 1, 2],
      ['back', -STEP_SECONDS, 3, 4],
    ] as const) {
      describe(`stepped ${name}`, () => {
        let used: ReturnType<typeof signed>;
        before(async () => {
          used = signed(tokens[0]!);
          assert.deepEqual(await send(used), [200, null]);
          await upkeepWhileStepped(seconds, tokens[first]!, tokens[second]!);
        });

        it('refuses, once the clock is back, a nonce used before the step', async () => {
          assert.deepEqual(await send(used), [401, 'nonce_used']);
        });

        it('accepts fresh requests once the clock is back', async () => {
          for (let i = 0; i < 5; i++) assert.deepEqual(await send(signed(tokens[0]!)), [200, null]);
        });
      });
    }

    it('still ends with status 0 on SIGTERM', async () => {
      child.kill('SIGTERM');
      const [code] = await within(HANG_MS, exited);
      assert.equal(code, 0);
    });
  },
);
