// The written rule of docs/decisions.md, "What differences are tolerated", as a property: take
// a valid request of any signature method, HTTP method, transmission (header, query, form
// body) and endpoint, add one difference from the table, and the server answers what the table
// says: a tolerated difference is accepted, a refused one gets its documented problem.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import type { TokenCredentials } from '../../src/client/index.ts';
import type { Parameter, Transmission } from '../../src/protocol/index.ts';
import { send } from './support/http.ts';
import { METHODS, PATHS, startWorld, TRANSMISSIONS } from './support/world.ts';
import type { MethodName, SignedCall, World } from './support/world.ts';
import { append, editProtocol, editQuery } from './support/wire.ts';
import type { Wire } from './support/wire.ts';

/** One valid request, before a difference is added. */
interface Shape {
  readonly method: MethodName;
  readonly transmission: Transmission;
  readonly httpMethod: string;
  readonly endpoint: 'resource' | 'temporary';
  readonly query: Parameter[];
  /** A form body (its pairs), a JSON body, or none. */
  readonly body: { kind: 'form'; pairs: Parameter[] } | { kind: 'json'; text: string } | undefined;
}

interface Difference {
  readonly name: string;
  /** What the table says: accepted, or this status and problem. */
  readonly expect: 'accepted' | { status: number; problem: string };
  applies(shape: Shape): boolean;
  /** Changes the call before signing, and/or the wire after. */
  readonly call?: (call: SignedCall, shape: Shape, value: string) => SignedCall;
  readonly wire?: (wire: Wire, shape: Shape, value: string) => Wire;
}

const protocol = (call: SignedCall, extra: Record<string, string>): SignedCall => ({
  ...call,
  protocolParameters: { ...call.protocolParameters, ...extra },
});

const searchParams = (pairs: readonly Parameter[]) =>
  new URLSearchParams(pairs.map(([name, value]): [string, string] => [name, value]));

const bodyText = (shape: Shape) =>
  shape.body?.kind === 'json'
    ? shape.body.text
    : shape.body?.kind === 'form'
      ? searchParams(shape.body.pairs).toString()
      : '';
const DIGEST: Record<MethodName, string> = {
  'HMAC-SHA1': 'sha1',
  'RSA-SHA1': 'sha1',
  PLAINTEXT: 'sha256', // PLAINTEXT has no digest of its own: the length names the one used
};
const bodyHash = (shape: Shape) =>
  createHash(DIGEST[shape.method]).update(bodyText(shape)).digest('base64');

/** A name that is not a protocol parameter, not realm, and not the one `scope` the flow reads. */
const isPlainName = (name: string) =>
  name !== '' && !name.startsWith('oauth_') && name !== 'realm' && name !== 'scope';

const PARAMETER_REJECTED = { status: 400, problem: 'parameter_rejected' };

const TOLERATED: readonly Difference[] = [
  {
    name: 'oauth_verifier re-sent',
    expect: 'accepted',
    applies: () => true,
    call: (call, _shape, value) => protocol(call, { oauth_verifier: value }),
  },
  {
    name: 'oauth_callback re-sent outside its step',
    expect: 'accepted',
    applies: (shape) => shape.endpoint !== 'temporary',
    call: (call, _shape, value) => protocol(call, { oauth_callback: value }),
  },
  ...['oauth_callback_confirmed', 'oauth_expires_in', 'oauth_authorization_expires_in'].map(
    (name): Difference => ({
      name: `${name} echoed`,
      expect: 'accepted',
      applies: () => true,
      call: (call, _shape, value) => protocol(call, { [name]: value }),
    }),
  ),
  {
    name: 'oauth_session_handle echoed outside the token endpoint',
    expect: 'accepted',
    applies: () => true,
    call: (call, _shape, value) => protocol(call, { oauth_session_handle: value }),
  },
  {
    name: 'oauth_body_hash of the body, any signature method',
    expect: 'accepted',
    applies: (shape) => shape.body?.kind !== 'form',
    call: (call, shape) => protocol(call, { oauth_body_hash: bodyHash(shape) }),
  },
  {
    name: 'non-oauth parameters in the Authorization header, copies included',
    expect: 'accepted',
    applies: (shape) => shape.transmission === 'header',
    call: (call, shape, value) =>
      protocol(call, {
        ...Object.fromEntries(shape.query.slice(0, 1)),
        ...(shape.body?.kind === 'form' ? Object.fromEntries(shape.body.pairs.slice(0, 1)) : {}),
        ...(isPlainName(value) ? { [value]: value } : { 'header-only': value }),
      }),
  },
  {
    name: 'the scheme in another case, a realm, no space after commas',
    expect: 'accepted',
    applies: (shape) => shape.transmission === 'header',
    wire: (wire, _shape, value) => ({
      ...wire,
      headers: {
        ...wire.headers,
        Authorization: (wire.headers['Authorization'] ?? '')
          .replace(/^OAuth /, `${value.length % 2 === 0 ? 'oauth' : 'OAUTH'} realm="r",`)
          .replaceAll(', ', ','),
      },
    }),
  },
  {
    name: 'oauth_version left out',
    expect: 'accepted',
    applies: () => true,
    call: (call) => ({ ...call, includeVersion: false }),
  },
  {
    name: 'an empty oauth_token on a request signed by the client alone',
    expect: 'accepted',
    applies: (shape) => shape.endpoint === 'temporary',
    call: (call) => protocol(call, { oauth_token: '' }),
  },
];

const KNOWN_SUFFIXES = new Set([
  'consumer_key',
  'token',
  'signature_method',
  'signature',
  'timestamp',
  'nonce',
  'version',
  'body_hash',
  'callback',
  'verifier',
  'session_handle',
  'callback_confirmed',
  'expires_in',
  'authorization_expires_in',
]);

/** Where the protocol parameters are not: the header unless they are there, else the query. */
function elsewhere(wire: Wire, transmission: Transmission, pair: Parameter): Wire {
  if (transmission === 'header') return editQuery(wire, append(...pair));
  const authorization = `OAuth ${encodeURIComponent(pair[0])}="${encodeURIComponent(pair[1])}"`;
  return { ...wire, headers: { ...wire.headers, Authorization: authorization } };
}

const REFUSED: readonly Difference[] = [
  {
    name: 'an unknown oauth_* name',
    expect: PARAMETER_REJECTED,
    applies: () => true,
    call: (call, _shape, value) => {
      const suffix = value.replace(/[^a-z_]/g, '') || 'colour';
      return protocol(call, {
        [`oauth_${KNOWN_SUFFIXES.has(suffix) || suffix === 'token_secret' ? `${suffix}_x` : suffix}`]:
          value,
      });
    },
  },
  {
    name: 'oauth_token_secret sent',
    expect: PARAMETER_REJECTED,
    applies: () => true,
    call: (call, _shape, value) => protocol(call, { oauth_token_secret: value }),
  },
  {
    name: 'a protocol parameter twice',
    expect: PARAMETER_REJECTED,
    applies: () => true,
    wire: (wire, shape, value) =>
      editProtocol(wire, shape.transmission, append('oauth_nonce', value)),
  },
  {
    name: 'protocol parameters in two places',
    expect: PARAMETER_REJECTED,
    applies: () => true,
    wire: (wire, shape, value) => elsewhere(wire, shape.transmission, ['oauth_verifier', value]),
  },
  {
    name: 'oauth_body_hash on a form-encoded body',
    expect: PARAMETER_REJECTED,
    applies: (shape) => shape.body?.kind === 'form',
    call: (call, shape) => protocol(call, { oauth_body_hash: bodyHash(shape) }),
  },
  {
    name: 'oauth_version other than 1.0',
    expect: { status: 400, problem: 'version_rejected' },
    applies: () => true,
    call: (call, _shape, value) =>
      protocol(
        { ...call, includeVersion: false },
        { oauth_version: value === '1.0' ? '2.0' : value },
      ),
  },
  {
    name: 'a timestamp in milliseconds',
    expect: { status: 401, problem: 'timestamp_refused' },
    applies: () => true,
    call: (call) => ({ ...call, timestamp: Date.now() }),
  },
];

const pairs = fc.array(
  fc.tuple(
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 8 }).filter(isPlainName),
    fc.string({ unit: 'grapheme', maxLength: 12 }),
  ),
  { maxLength: 3 },
);

const shapes: fc.Arbitrary<Shape> = fc
  .record({
    method: fc.constantFrom(...METHODS),
    transmission: fc.constantFrom(...TRANSMISSIONS),
    httpMethod: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE'),
    endpoint: fc.constantFrom('resource' as const, 'temporary' as const),
    query: pairs,
    form: pairs,
    json: fc.boolean(),
  })
  .map(({ method, transmission, httpMethod, endpoint, query, form, json }): Shape => {
    // §3.5.2: body transmission needs a form body; the flow endpoints take POST.
    const verb =
      endpoint === 'temporary'
        ? 'POST'
        : transmission === 'body' && (httpMethod === 'GET' || httpMethod === 'DELETE')
          ? 'POST'
          : httpMethod;
    const hasBody = verb === 'POST' || verb === 'PUT';
    const body: Shape['body'] = !hasBody
      ? undefined
      : json && transmission !== 'body'
        ? { kind: 'json', text: JSON.stringify(Object.fromEntries(form)) }
        : { kind: 'form', pairs: form };
    return { method, transmission, httpMethod: verb, endpoint, query, body };
  });

const values = fc.string({ unit: 'grapheme', maxLength: 24 });

describe('docs/decisions.md "What differences are tolerated", as a property over HTTP', () => {
  let world: World;
  const tokens = new Map<MethodName, TokenCredentials>();
  before(async () => {
    world = await startWorld();
    for (const method of METHODS)
      tokens.set(method, await world.tokenCredentials(method, 'header'));
  });
  after(() => world.close());

  function request(shape: Shape, difference: Difference, value: string): Wire {
    const search = shape.query.length === 0 ? '' : `?${searchParams(shape.query)}`;
    let call: SignedCall = {
      signatureMethod: shape.method,
      transmission: shape.transmission,
      httpMethod: shape.httpMethod,
      path: (shape.endpoint === 'temporary' ? PATHS.requestToken : PATHS.me) + search,
      ...(shape.endpoint === 'temporary'
        ? { protocolParameters: { oauth_callback: 'oob' } }
        : { token: tokens.get(shape.method) }),
      ...(shape.body?.kind === 'form' ? { body: searchParams(shape.body.pairs) } : {}),
      ...(shape.body?.kind === 'json'
        ? { body: shape.body.text, headers: { 'Content-Type': 'application/json' } }
        : {}),
    };
    if (difference.call) call = difference.call(call, shape, value);
    const wire = world.sign(call);
    return difference.wire ? difference.wire(wire, shape, value) : wire;
  }

  const check = async (shape: Shape, difference: Difference, value: string) => {
    const answer = await send(request(shape, difference, value));
    const where = `${difference.name}: ${answer.status} ${answer.text.slice(0, 300)}`;
    if (difference.expect === 'accepted') {
      assert.equal(answer.status, 200, where);
    } else {
      assert.equal(answer.status, difference.expect.status, where);
      assert.equal(answer.fields['oauth_problem'], difference.expect.problem, where);
    }
  };

  it('accepts a valid request with any tolerated difference added', async () => {
    await fc.assert(
      fc.asyncProperty(
        shapes,
        fc.constantFrom(...TOLERATED),
        values,
        async (shape, difference, value) => {
          fc.pre(difference.applies(shape));
          await check(shape, difference, value);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('refuses a valid request with any refused difference added, with the documented problem', async () => {
    await fc.assert(
      fc.asyncProperty(
        shapes,
        fc.constantFrom(...REFUSED),
        values,
        async (shape, difference, value) => {
          fc.pre(difference.applies(shape));
          await check(shape, difference, value);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('has a property case for every row of the table', () => {
    // The table's 7 tolerated rows as 11 cases (a row naming several parameters or spellings
    // has one case each, or one case for all), its 6 refused rows as 7: a new row needs a case.
    assert.equal(TOLERATED.length, 11);
    assert.equal(REFUSED.length, 7);
  });
});
