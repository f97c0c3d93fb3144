// POST /verify: its service credential, its verdicts, and the Python, Go and Java examples of
// docs/edge.md run as written in front of it, each receiving real signed requests.
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { connect } from 'node:net';
import fc from 'fast-check';
import { promisify } from 'node:util';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { signRequest } from '../../src/client/index.ts';
import type { SignOptions } from '../../src/client/index.ts';
import { requirement } from '../support/requirements.ts';
import { docBlock, freePort, launch } from './edge-processes.ts';
import type { RunningEdge } from './edge-processes.ts';
import { ask, startLatchkey, VERIFY_TOKEN } from './support.ts';
import type { EdgeLatchkey } from './support.ts';

function post(latchkey: EdgeLatchkey, body: unknown, authorization?: string) {
  return ask({
    port: latchkey.port,
    method: 'POST',
    path: '/verify',
    headers: {
      'content-type': 'application/json',
      ...(authorization === undefined ? {} : { authorization }),
    },
    body: JSON.stringify(body),
  });
}

describe('POST /verify: the verdict on a described request, for a service holding the credential', () => {
  let latchkey: EdgeLatchkey;
  before(async () => {
    latchkey = await startLatchkey();
  });
  after(async () => {
    await latchkey.close();
  });

  const signed = (options: Partial<SignOptions> = {}) =>
    signRequest({
      method: 'GET',
      url: 'https://api.example.test/photos?size=large',
      client: latchkey.client,
      token: { token: latchkey.token.token, secret: latchkey.token.secret },
      ...options,
    });

  it('refuses a caller without the service credential, or with another, in constant time', async () => {
    const request = signed();
    const described = {
      method: 'GET',
      url: request.url,
      authorization: request.headers['Authorization'],
    };
    for (const authorization of [undefined, 'Bearer wrong', `Basic ${VERIFY_TOKEN}`]) {
      const answer = await post(latchkey, described, authorization);
      assert.equal(answer.status, 401, String(authorization));
      assert.match(String(answer.headers['www-authenticate']), /^Bearer /);
      assert.equal(JSON.parse(answer.body).error, 'invalid_token');
    }
    // None of them spent the nonce: the service's own call still verifies.
    const answer = await post(latchkey, described, `Bearer ${VERIFY_TOKEN}`);
    assert.equal(answer.status, 200);
    assert.equal(JSON.parse(answer.body).ok, true);
  });

  it('answers the caller, then refuses the replay with the status and challenge to send', async () => {
    const request = signed();
    const described = {
      method: 'GET',
      url: request.url,
      authorization: request.headers['Authorization'],
    };
    const first = JSON.parse((await post(latchkey, described, `Bearer ${VERIFY_TOKEN}`)).body);
    assert.deepEqual(first, {
      ok: true,
      client: { key: latchkey.client.key, name: 'Edge test app' },
      owner: { subject: 'user-42', name: 'Zoë Ådams' },
      scope: 'read',
      parameters: { query: [['size', 'large']], form: [], header: [] },
    });
    const replay = JSON.parse((await post(latchkey, described, `Bearer ${VERIFY_TOKEN}`)).body);
    assert.equal(replay.ok, false);
    assert.equal(replay.status, 401);
    assert.equal(replay.oauth_problem, 'nonce_used');
    assert.equal(replay.www_authenticate, 'OAuth realm="Latchkey", oauth_problem="nonce_used"');
  });

  it("keeps the described request's User-Agent as the token's device hint", async () => {
    const request = signed();
    const described = {
      method: 'GET',
      url: request.url,
      authorization: request.headers['Authorization'],
      userAgent: 'PhotoFrame/2.1 (Android 14)',
    };
    const answer = JSON.parse((await post(latchkey, described, `Bearer ${VERIFY_TOKEN}`)).body);
    assert.equal(answer.ok, true);
    const owned = await latchkey.provider.tokens.ofOwner(latchkey.token.ownerId);
    const mine = owned.find((token) => token.clientKey === latchkey.client.key);
    assert.equal(mine?.deviceHint, 'PhotoFrame/2.1 (Android 14)');
    const tooLong = await post(
      latchkey,
      { ...described, userAgent: 'x'.repeat(1025) },
      `Bearer ${VERIFY_TOKEN}`,
    );
    assert.equal(tooLong.status, 400);
  });

  it('verifies a form body, a required scope, and refuses what is not a described request', async () => {
    const form = signed({
      method: 'POST',
      url: 'https://api.example.test/photos',
      body: new URLSearchParams({ caption: 'sun & sea' }),
    });
    const verdict = JSON.parse(
      (
        await post(
          latchkey,
          {
            method: 'POST',
            url: form.url,
            authorization: form.headers['Authorization'],
            contentType: form.headers['Content-Type'],
            body: form.body,
          },
          `Bearer ${VERIFY_TOKEN}`,
        )
      ).body,
    );
    assert.equal(verdict.ok, true, JSON.stringify(verdict));
    assert.deepEqual(verdict.parameters.form, [['caption', 'sun & sea']]);

    const scoped = signed();
    const denied = JSON.parse(
      (
        await post(
          latchkey,
          {
            method: 'GET',
            url: scoped.url,
            authorization: scoped.headers['Authorization'],
            scope: 'write',
          },
          `Bearer ${VERIFY_TOKEN}`,
        )
      ).body,
    );
    assert.equal(denied.status, 403);
    assert.equal(denied.oauth_problem, 'permission_denied');

    for (const body of [
      { method: 'GET' },
      { method: 'GET', url: '/photos' },
      { method: 'GET', url: 'https://api.example.test/#x' },
    ]) {
      const answer = await post(latchkey, body, `Bearer ${VERIFY_TOKEN}`);
      assert.equal(answer.status, 400, JSON.stringify(body));
      assert.equal(JSON.parse(answer.body).error, 'invalid_request');
    }
    const notJson = await ask({
      port: latchkey.port,
      method: 'POST',
      path: '/verify',
      headers: { authorization: `Bearer ${VERIFY_TOKEN}`, 'content-type': 'text/plain' },
      body: 'GET /',
    });
    assert.equal(notJson.status, 415);
  });

  it('checks any other body against its oauth_body_hash', async () => {
    const json = '{"caption":"sun & sea"}';
    const request = signed({
      method: 'PUT',
      url: 'https://api.example.test/photos/7',
      headers: { 'Content-Type': 'application/json' },
      body: json,
      bodyHash: true,
    });
    const describe = (body: string) => ({
      method: 'PUT',
      url: request.url,
      authorization: request.headers['Authorization'],
      contentType: 'application/json',
      body,
    });
    const altered = JSON.parse(
      (await post(latchkey, describe(json.replace('sea', 'sky')), `Bearer ${VERIFY_TOKEN}`)).body,
    );
    assert.equal(altered.oauth_problem, 'body_hash_invalid');
    const kept = JSON.parse((await post(latchkey, describe(json), `Bearer ${VERIFY_TOKEN}`)).body);
    assert.equal(kept.ok, true, JSON.stringify(kept));
  });

  it('refuses an oversized body with 413 in the one refusal shape, and still answers after', async () => {
    const answer = await ask({
      port: latchkey.port,
      method: 'POST',
      path: '/verify',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${VERIFY_TOKEN}` },
      body: JSON.stringify({ method: 'GET', url: 'https://a.test/', body: 'x'.repeat(200_000) }),
    });
    assert.equal(answer.status, 413, answer.body);
    assert.ok(typeof JSON.parse(answer.body).error === 'string');
    const request = signed();
    const next = await post(
      latchkey,
      { method: 'GET', url: request.url, authorization: request.headers['Authorization'] },
      `Bearer ${VERIFY_TOKEN}`,
    );
    assert.equal(JSON.parse(next.body).ok, true);
  });

  it('answers a flood from one address, each refused, and still verifies after it', async () => {
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, index) =>
        post(latchkey, { method: 'GET', url: 'https://a.test/' }, `Bearer wrong-${index}`),
      ),
    );
    assert.deepEqual(new Set(answers.map((answer) => answer.status)), new Set([401]));
    const request = signed();
    const after = await post(
      latchkey,
      { method: 'GET', url: request.url, authorization: request.headers['Authorization'] },
      `Bearer ${VERIFY_TOKEN}`,
    );
    assert.equal(JSON.parse(after.body).ok, true);
  });

  it('a body sent slowly and then abandoned leaves the API answering', async () => {
    const socket = connect(latchkey.port, '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(
      'POST /verify HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
        `Authorization: Bearer ${VERIFY_TOKEN}\r\nContent-Length: 1000\r\n\r\n{"method":`,
    );
    const request = signed();
    const during = await post(
      latchkey,
      { method: 'GET', url: request.url, authorization: request.headers['Authorization'] },
      `Bearer ${VERIFY_TOKEN}`,
    );
    assert.equal(JSON.parse(during.body).ok, true);
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.destroy();
    await closed;
    assert.equal((await ask({ port: latchkey.port, path: '/healthz' })).status, 200);
  });

  it('never answers 500 to any JSON a caller holding the credential sends', async () => {
    const value = fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.boolean());
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.record(
            {
              method: value,
              url: fc.oneof(value, fc.webUrl()),
              authorization: value,
              body: value,
              contentType: value,
            },
            { requiredKeys: [] },
          ),
          fc.jsonValue(),
        ),
        async (body) => {
          const answer = await post(latchkey, body, `Bearer ${VERIFY_TOKEN}`);
          assert.ok(answer.status < 500, `${answer.status} ${answer.body}`);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('is described in /openapi.json', async () => {
    const document = JSON.parse((await ask({ port: latchkey.port, path: '/openapi.json' })).body);
    assert.ok(document.paths['/verify']?.post, 'POST /verify in the document');
  });
});

/** The first interpreter that has the modules, as the interop suite finds it. */
function python(): { command: string } | { problem: string } {
  for (const command of [process.env.LATCHKEY_PYTHON ?? 'python3', '/usr/bin/python3']) {
    const probe = spawnSync(command, ['-c', 'import requests, requests_oauthlib'], {
      stdio: 'ignore',
      timeout: 20_000,
    });
    if (probe.status === 0) return { command };
  }
  return {
    problem: 'python3 with requests and requests_oauthlib not found (bash .ci/install-interop.sh)',
  };
}

function toolProblem(command: string, args: string[]): string | undefined {
  const run = spawnSync(command, args, { stdio: 'ignore', timeout: 20_000 });
  return run.status === 0
    ? undefined
    : `${command} not found (bash .ci/install-edges.sh installs it)`;
}

interface Example {
  readonly name: string;
  readonly problem: () => string | undefined;
  /** Writes the docs' block into `dir` and answers the command that serves it. */
  readonly prepare: (dir: string) => { command: string; args: string[] };
  readonly waitMs: number;
}

const pythonFound = python();
const examples: readonly Example[] = [
  {
    name: 'Python (requests)',
    problem: () => ('problem' in pythonFound ? pythonFound.problem : undefined),
    prepare: (dir) => {
      writeFileSync(join(dir, 'service.py'), docBlock('python'));
      return { command: (pythonFound as { command: string }).command, args: ['service.py'] };
    },
    waitMs: 20_000,
  },
  {
    name: 'Go (net/http)',
    problem: () => toolProblem('go', ['version']),
    prepare: (dir) => {
      writeFileSync(join(dir, 'main.go'), docBlock('go'));
      const build = spawnSync('go', ['build', '-o', 'service', 'main.go'], {
        cwd: dir,
        encoding: 'utf8',
        timeout: 170_000,
        env: { ...process.env, GO111MODULE: 'off' },
      });
      if (build.status !== 0) throw new Error(`go build failed: ${build.stderr}`);
      return { command: join(dir, 'service'), args: [] };
    },
    waitMs: 10_000,
  },
  {
    name: 'Java (java.net.http)',
    problem: () => toolProblem('javac', ['-version']) ?? toolProblem('java', ['-version']),
    prepare: (dir) => {
      writeFileSync(join(dir, 'Verify.java'), docBlock('java'));
      return { command: 'java', args: ['Verify.java'] };
    },
    waitMs: 90_000,
  },
];

for (const example of examples) {
  const skip = requirement(`the ${example.name} example's toolchain`, example.problem());

  describe(`docs/edge.md's ${example.name} service, asking /verify`, { skip }, () => {
    let latchkey: EdgeLatchkey;
    let service: RunningEdge;
    let port: number;

    before(async () => {
      latchkey = await startLatchkey();
      port = await freePort();
      const dir = mkdtempSync(join(tmpdir(), 'latchkey-verify-example-'));
      try {
        const { command, args } = example.prepare(dir);
        const env = {
          ...process.env,
          LATCHKEY_URL: latchkey.base,
          LATCHKEY_VERIFY_TOKEN: VERIFY_TOKEN,
          PUBLIC_URL: `http://127.0.0.1:${port}`,
          PORT: String(port),
        };
        service = await launch(command, args, port, dir, env, example.waitMs);
      } catch (error) {
        rmSync(dir, { recursive: true, force: true });
        throw error;
      }
    });
    after(async () => {
      await service?.stop();
      await latchkey?.close();
    });

    const sign = (options: Partial<SignOptions> = {}) =>
      signRequest({
        method: 'GET',
        url: `http://127.0.0.1:${port}/photos?size=large`,
        client: latchkey.client,
        token: { token: latchkey.token.token, secret: latchkey.token.secret },
        ...options,
      });

    function send(request: ReturnType<typeof sign>) {
      const url = new URL(request.url);
      return ask({
        port,
        method: request.method,
        path: request.url.slice(url.origin.length),
        headers: request.headers,
        ...(request.body === undefined ? {} : { body: Buffer.from(request.body as string) }),
      });
    }

    it('answers valid, tampered and replayed requests as Latchkey does', async () => {
      const valid = sign();
      const ok = await send(valid);
      assert.equal(ok.status, 200, ok.body);
      assert.deepEqual(JSON.parse(ok.body).owner, { subject: 'user-42', name: 'Zoë Ådams' });

      const replay = await send(valid);
      assert.equal(replay.status, 401);
      assert.equal(JSON.parse(replay.body).oauth_problem, 'nonce_used');
      assert.equal(
        replay.headers['www-authenticate'],
        'OAuth realm="Latchkey", oauth_problem="nonce_used"',
      );

      const signed = sign();
      const tampered = await send({ ...signed, url: signed.url.replace('large', 'small') });
      assert.equal(tampered.status, 401);
      assert.equal(JSON.parse(tampered.body).oauth_problem, 'signature_invalid');

      const form = await send(
        sign({
          method: 'POST',
          url: `http://127.0.0.1:${port}/photos`,
          body: new URLSearchParams({ caption: 'sun & sea' }),
        }),
      );
      assert.equal(form.status, 200, form.body);
      assert.deepEqual(JSON.parse(form.body).parameters.form, [['caption', 'sun & sea']]);
    });

    if (example.name.startsWith('Python')) {
      it('requests-oauthlib signs; valid, tampered, replayed, then revoked are answered correctly', async () => {
        const driver = `
import json, sys
import requests
from requests_oauthlib import OAuth1
base, key, secret, token, token_secret = sys.argv[1:6]
auth = OAuth1(key, secret, token, token_secret)
session = requests.Session()
def result(r):
    return {"status": r.status_code, "body": r.json(), "www": r.headers.get("WWW-Authenticate")}
out = {}
for case in sys.argv[6].split(","):
    if case == "form":
        r = session.post(base + "/photos", data={"caption": "sun & sea"}, auth=auth)
    else:
        prepared = session.prepare_request(requests.Request("GET", base + "/photos?size=large", auth=auth))
        if case == "tampered":
            prepared.url = prepared.url.replace("large", "small")
        if case == "replayed":
            session.send(prepared)
        r = session.send(prepared)
    out[case] = result(r)
print(json.dumps(out))
`;
        // Asynchronously: Latchkey answers the service from this process meanwhile.
        const run = async (cases: string) => {
          const { stdout } = await promisify(execFile)(
            (pythonFound as { command: string }).command,
            [
              '-c',
              driver,
              `http://127.0.0.1:${port}`,
              latchkey.client.key,
              latchkey.client.secret ?? '',
              latchkey.token.token,
              latchkey.token.secret,
              cases,
            ],
            { encoding: 'utf8', timeout: 60_000 },
          );
          return JSON.parse(stdout);
        };
        const answers = await run('valid,form,tampered,replayed');
        assert.equal(answers.valid.status, 200);
        assert.equal(answers.valid.body.owner.subject, 'user-42');
        assert.deepEqual(answers.valid.body.parameters.query, [['size', 'large']]);
        assert.equal(answers.form.status, 200);
        assert.equal(answers.tampered.status, 401);
        assert.equal(answers.tampered.body.oauth_problem, 'signature_invalid');
        assert.equal(answers.replayed.status, 401);
        assert.equal(answers.replayed.body.oauth_problem, 'nonce_used');
        assert.match(answers.replayed.www, /^OAuth realm="Latchkey"/);

        assert.equal(await latchkey.provider.tokens.revoke(latchkey.token.token), true);
        const revoked = await run('valid');
        assert.equal(revoked.valid.status, 401);
        assert.equal(revoked.valid.body.oauth_problem, 'token_revoked');
      });
    }
  });
}
