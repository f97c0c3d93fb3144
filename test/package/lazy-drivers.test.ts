import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';

const probe = (...args: string[]) =>
  JSON.parse(
    execFileSync(process.execPath, ['test/package/driver-probe.ts', ...args], {
      encoding: 'utf8',
    }),
  ) as string[];

describe('Database drivers load only when used', () => {
  it('loads neither pg nor ioredis with the package entry', () => {
    assert.deepEqual(probe('src/index.ts'), []);
  });

  it('loads pg and ioredis when the store opener is given a postgres:// URL', () => {
    assert.deepEqual(
      probe('src/index.ts', 'postgres://nobody@127.0.0.1:1/none?connect_timeout=1'),
      ['ioredis', 'pg'],
    );
  });
});
