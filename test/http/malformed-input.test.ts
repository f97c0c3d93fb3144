// Errors: malformed input of any kind (bad encoding, a broken header, a huge
// header or body, too many parameters, a wrong content type, invalid UTF-8, NUL bytes) gets
// a 4xx with a clear message, never a 500.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { send } from '../conformance/support/http.ts';
import type { RawResponse } from '../conformance/support/http.ts';
import { PATHS, startWorld } from '../conformance/support/world.ts';
import type { World } from '../conformance/support/world.ts';
import { assertProblem } from '../conformance/support/wire.ts';
import { sendBytes } from './support/raw-socket.ts';

let world: World;
before(async () => {
  world = await startWorld();
});
after(() => world.close());

/** A 4xx whose body says what went wrong (oauth_problem_advice on the OAuth routes). */
function assertClearRefusal(answer: RawResponse, status?: number): void {
  const where = `${answer.status} ${answer.text.slice(0, 200)}`;
  if (status !== undefined) assert.equal(answer.status, status, where);
  assert.ok(answer.status >= 400 && answer.status < 500, where);
  assert.ok((answer.fields['oauth_problem_advice'] ?? '').length > 0, where);
}

const get = (pathAndQuery: string, headers: Record<string, string> = {}) =>
  send({ method: 'GET', url: world.url + pathAndQuery, headers });
const post = (path: string, body: string | Buffer, contentType: string) =>
  send({ method: 'POST', url: world.url + path, headers: { 'Content-Type': contentType }, body });
const FORM = 'application/x-www-form-urlencoded';

describe('Malformed input: percent-encoding', () => {
  it('refuses "%zz" in the query with 400 parameter_rejected', async () => {
    assertProblem(await get(`${PATHS.me}?a=%zz`), 400, 'parameter_rejected');
  });

  it('refuses a trailing "%" in a form body with 400 parameter_rejected', async () => {
    assertProblem(
      await post(PATHS.requestToken, 'oauth_callback=oob%', FORM),
      400,
      'parameter_rejected',
    );
  });

  it('refuses "%G0" in an Authorization header value with 400 parameter_rejected', async () => {
    const answer = await get(PATHS.me, { Authorization: 'OAuth oauth_consumer_key="%G0"' });
    assertProblem(answer, 400, 'parameter_rejected');
  });

  it('refuses percent-encoded bytes that are not UTF-8 with 400 parameter_rejected', async () => {
    assertProblem(await get(`${PATHS.me}?name=%FF%FE`), 400, 'parameter_rejected');
  });

  it('refuses an overlong UTF-8 encoding of "/" with 400 parameter_rejected', async () => {
    assertProblem(await get(`${PATHS.me}?name=%C0%AF`), 400, 'parameter_rejected');
  });

  it('answers a bad percent-encoding in the path with a 4xx', async () => {
    const answer = await get('/api/me%');
    assert.ok(answer.status >= 400 && answer.status < 500, `${answer.status} ${answer.text}`);
  });
});

describe('Malformed input: the Authorization header', () => {
  const cases: Array<[string, string]> = [
    ['an unterminated quoted value', 'OAuth oauth_consumer_key="abc'],
    ['a parameter without "="', 'OAuth oauth_consumer_key'],
    ['parameters not separated by ","', 'OAuth oauth_consumer_key="a" oauth_nonce="b"'],
    ['an empty parameter name', 'OAuth ="x"'],
    ['realm twice', 'OAuth realm="a", realm="b"'],
  ];
  for (const [what, value] of cases) {
    it(`refuses a header with ${what} with 400 parameter_rejected`, async () => {
      assertProblem(await get(PATHS.me, { Authorization: value }), 400, 'parameter_rejected');
    });
  }

  it('answers the bare scheme "OAuth" with 401 parameter_absent, not a crash', async () => {
    assertProblem(await get(PATHS.me, { Authorization: 'OAuth' }), 401, 'parameter_absent');
  });

  it('answers a header over 16 KiB with 431 and a message', async () => {
    const answer = await get(PATHS.me, {
      Authorization: `OAuth oauth_nonce="${'n'.repeat(17 * 1024)}"`,
    });
    assert.equal(answer.status, 431);
    assert.match(answer.text, /header/i);
  });
});

describe('Malformed input: bodies and content types', () => {
  it('answers a form body over the 64 KiB limit with 413 and a message', async () => {
    assertClearRefusal(await post(PATHS.requestToken, `a=${'x'.repeat(70 * 1024)}`, FORM), 413);
  });

  it('answers a JSON body on the temporary credential endpoint with 400 parameter_absent: only a form body carries parameters', async () => {
    const body = JSON.stringify({ oauth_consumer_key: 'k', oauth_callback: 'oob' });
    assertProblem(
      await post(PATHS.requestToken, body, 'application/json'),
      400,
      'parameter_absent',
    );
  });

  it('answers a multipart body with 400 parameter_absent', async () => {
    const body =
      '--b\r\nContent-Disposition: form-data; name="oauth_callback"\r\n\r\noob\r\n--b--\r\n';
    const answer = await post(PATHS.requestToken, body, 'multipart/form-data; boundary=b');
    assertProblem(answer, 400, 'parameter_absent');
  });

  it('answers a garbled Content-Type with a 4xx', async () => {
    const answer = await post(PATHS.requestToken, 'oauth_callback=oob', ';;;=');
    assert.ok(answer.status >= 400 && answer.status < 500, `${answer.status} ${answer.text}`);
  });

  it('answers 5000 parameters in the query with 400 parameter_rejected', async () => {
    const query = Array.from({ length: 5000 }, (_, i) => `p${i}=1`).join('&');
    assertProblem(await get(`${PATHS.me}?${query}`.slice(0, 15000)), 400, 'parameter_rejected');
  });

  it('answers raw bytes that are not UTF-8 in a form body with a clear 4xx', async () => {
    const body = Buffer.concat([
      Buffer.from('oauth_callback=oob&x='),
      Buffer.from([0xff, 0xfe, 0xc0]),
    ]);
    assertClearRefusal(await post(PATHS.requestToken, body, FORM));
  });

  it('answers a NUL byte encoded in a value with a clear 4xx', async () => {
    assertClearRefusal(
      await get(
        `${PATHS.me}?oauth_consumer_key=%00&oauth_signature_method=PLAINTEXT&oauth_signature=%26`,
      ),
    );
  });

  it('answers a raw NUL byte in a form body with a clear 4xx', async () => {
    assertClearRefusal(await post(PATHS.requestToken, 'oauth_callback=o\u0000ob', FORM));
  });
});

describe('Malformed input: HTTP methods a flow endpoint does not serve', () => {
  for (const method of ['PUT', 'DELETE', 'PATCH']) {
    it(`answers ${method} on the temporary credential endpoint with a 4xx that names the route`, async () => {
      const answer = await send({ method, url: world.url + PATHS.requestToken });
      assert.ok(answer.status >= 400 && answer.status < 500, `${answer.status} ${answer.text}`);
      assert.match(answer.text, /request_token/);
    });
  }
});

describe('Malformed input: the request line and headers as bytes', () => {
  const port = () => world.server.port;
  const request = (lines: string[]) => `${lines.join('\r\n')}\r\n\r\n`;

  it('answers a raw NUL byte in a header value with 400', async () => {
    const answer = await sendBytes(
      port(),
      request([
        'GET /api/me HTTP/1.1',
        'Host: x',
        'Authorization: OAuth a="\u0000"',
        'Connection: close',
      ]),
    );
    assert.equal(answer.status, 400);
  });

  it('answers a raw NUL byte in the request target with 400', async () => {
    const answer = await sendBytes(
      port(),
      request(['GET /api/me?a=\u0000 HTTP/1.1', 'Host: x', 'Connection: close']),
    );
    assert.equal(answer.status, 400);
  });

  it('answers raw non-UTF-8 bytes in the Authorization header with a 4xx', async () => {
    const head = Buffer.from(
      'GET /api/me HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: OAuth oauth_consumer_key="',
      'latin1',
    );
    const tail = Buffer.from('"\r\n\r\n', 'latin1');
    const answer = await sendBytes(port(), Buffer.concat([head, Buffer.from([0xff, 0xc3]), tail]));
    assert.ok(answer.status >= 400 && answer.status < 500, answer.head);
  });

  it('answers raw non-UTF-8 bytes in the query with a 4xx', async () => {
    const head = Buffer.from('GET /api/me?a=', 'latin1');
    const tail = Buffer.from(' HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', 'latin1');
    const answer = await sendBytes(port(), Buffer.concat([head, Buffer.from([0xff, 0xfe]), tail]));
    assert.ok(answer.status >= 400 && answer.status < 500, answer.head);
  });

  it('answers a Host header with a non-numeric port with 400 parameter_rejected', async () => {
    // A known client: an unknown key is refused before the base string is built.
    const answer = await sendBytes(
      port(),
      request([
        `GET /api/me?oauth_consumer_key=${world.sharedClient.key}&oauth_signature_method=HMAC-SHA1&oauth_signature=a&oauth_nonce=n&oauth_timestamp=${world.clock.seconds()} HTTP/1.1`,
        'Host: 127.0.0.1:abc',
        'Connection: close',
      ]),
    );
    assert.equal(answer.status, 400, answer.head);
    assert.match(answer.body, /oauth_problem=parameter_rejected/);
  });

  it('answers a request without a Host header with a 4xx', async () => {
    const answer = await sendBytes(port(), request(['GET /api/me HTTP/1.0', 'Connection: close']));
    assert.ok(answer.status >= 400 && answer.status < 500, answer.head);
  });

  it('answers an unknown HTTP method with a 4xx', async () => {
    const answer = await sendBytes(
      port(),
      request(['BREW /api/me HTTP/1.1', 'Host: x', 'Connection: close']),
    );
    assert.ok(answer.status >= 400 && answer.status < 500, answer.head);
  });

  it('answers a broken chunked body with 400', async () => {
    const answer = await sendBytes(
      port(),
      'POST /oauth/request_token HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n',
    );
    assert.equal(answer.status, 400, answer.head);
  });

  it('answers a request in absolute form with the OAuth verification, not a crash', async () => {
    const answer = await sendBytes(
      port(),
      request([
        `GET http://127.0.0.1:${port()}/api/me HTTP/1.1`,
        `Host: 127.0.0.1:${port()}`,
        'Connection: close',
      ]),
    );
    assert.equal(answer.status, 401, answer.head);
    assert.match(answer.body, /oauth_problem=parameter_absent/);
  });
});
