// The logs' second line of defence (src/http/log-serializers.ts, censorSecretFields): pino's
// `formatters.log`, run on every log call's fields before the serializers. Fields named for a
// credential are censored at any depth; a line with nothing to censor is passed through as it
// is, so the access line written for every request costs no copy.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { censorSecretFields } from '../../src/http/log-serializers.ts';

describe('Log censoring: fields named for a credential', () => {
  it('passes a line with nothing to censor through as the same object', () => {
    const line = { req: {}, res: {}, responseTime: 1.5, client: { key: 'k', name: 'App' } };
    assert.equal(censorSecretFields(line), line);
  });

  it('censors a field named for a secret at the top level', () => {
    assert.deepEqual(censorSecretFields({ verifier: 'v-1', owner: 'alice' }), {
      verifier: '[redacted]',
      owner: 'alice',
    });
  });

  it('censors credentials in headers nested under any field', () => {
    const line = {
      upstream: { request: { headers: { authorization: 'OAuth x', accept: '*/*' } } },
    };
    assert.deepEqual(censorSecretFields(line), {
      upstream: { request: { headers: { authorization: '[redacted]', accept: '*/*' } } },
    });
  });

  it('censors inside arrays', () => {
    assert.deepEqual(censorSecretFields({ clients: [{ key: 'a' }, { key: 'b', secret: 's-2' }] }), {
      clients: [{ key: 'a' }, { key: 'b', secret: '[redacted]' }],
    });
  });

  it('censors a whole body, whatever its type', () => {
    assert.deepEqual(censorSecretFields({ request: { body: { password: 'p' } } }), {
      request: { body: '[redacted]' },
    });
  });

  it("never changes the caller's objects", () => {
    const owner = { username: 'alice', password: 'pw-1' };
    const line = { owner, list: [owner] };
    censorSecretFields(line);
    assert.deepEqual(owner, { username: 'alice', password: 'pw-1' });
    assert.equal(line.list[0], owner);
  });

  it('leaves the fields its serializers shape (req, res, err) to them', () => {
    const req = { headers: { authorization: 'OAuth x' } };
    assert.equal(censorSecretFields({ req }).req, req);
  });

  it('stops at a fixed depth, so a cycle cannot hang a log call', () => {
    const loop: Record<string, unknown> = { name: 'loop' };
    loop['self'] = loop;
    assert.equal(censorSecretFields({ loop }).loop, loop);
  });

  it('writes a Buffer or a Date as pino would, without walking into it', () => {
    const line = { at: new Date(0), bytes: Buffer.from('ab') };
    assert.equal(censorSecretFields(line), line);
  });
});
