// Properties of RFC 5849 §3.6 encoding, form parsing and §3.4.1.3.2 normalization, over
// arbitrary Unicode text ("binary" code points and grapheme clusters; lone surrogates are
// not Unicode text and are left out).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  normalizeParameters,
  parseFormUrlEncoded,
  percentDecode,
  percentEncode,
  signatureBaseString,
} from '../../src/protocol/index.ts';
import type { Parameter } from '../../src/protocol/index.ts';

const text = fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }));
const pair = fc.tuple(text, text) as fc.Arbitrary<Parameter>;

/** An oracle built on the platform: encodeURIComponent plus the five characters it keeps. */
function referenceEncode(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

describe('RFC 5849 §3.6 percent encoding, for any Unicode text', () => {
  it('decodes back to the text it encoded', () => {
    fc.assert(fc.property(text, (s) => percentDecode(percentEncode(s)) === s));
  });

  it('writes only unreserved characters and %XX with uppercase hex', () => {
    fc.assert(
      fc.property(text, (s) => /^(?:[A-Za-z0-9\-._~]|%[0-9A-F]{2})*$/.test(percentEncode(s))),
    );
  });

  it("agrees with encodeURIComponent corrected for !'()*", () => {
    fc.assert(fc.property(text, (s) => percentEncode(s) === referenceEncode(s)));
  });

  it('gives different encodings to different texts', () => {
    fc.assert(
      fc.property(text, text, (a, b) => {
        fc.pre(a !== b);
        return percentEncode(a) !== percentEncode(b);
      }),
    );
  });
});

describe('RFC 5849 §3.4.1.3.1 form parsing, for any pairs', () => {
  it('reads back the pairs of a body written with %-encoding', () => {
    fc.assert(
      fc.property(fc.array(pair), (pairs) => {
        const body = pairs.map(([n, v]) => `${percentEncode(n)}=${percentEncode(v)}`).join('&');
        assert.deepEqual(parseFormUrlEncoded(body), pairs);
      }),
    );
  });

  it('reads back the pairs of a body written by URLSearchParams ("+" for a space)', () => {
    fc.assert(
      fc.property(fc.array(pair), (pairs) => {
        const body = new URLSearchParams(
          pairs.map(([n, v]): [string, string] => [n, v]),
        ).toString();
        assert.deepEqual(parseFormUrlEncoded(body), pairs);
      }),
    );
  });
});

describe('RFC 5849 §3.4.1.3.2 normalization, for any pairs', () => {
  it('does not depend on the order the pairs arrive in', () => {
    fc.assert(
      fc.property(
        fc
          .array(pair)
          .chain((pairs) =>
            fc.tuple(
              fc.constant(pairs),
              fc.shuffledSubarray(pairs, { minLength: pairs.length, maxLength: pairs.length }),
            ),
          ),
        ([pairs, shuffled]) => normalizeParameters(pairs) === normalizeParameters(shuffled),
      ),
    );
  });

  it('orders the encoded pairs by name, then by value, in byte order', () => {
    fc.assert(
      fc.property(fc.array(pair), (pairs) => {
        const normalized = normalizeParameters(pairs);
        if (normalized === '') return pairs.length === 0;
        const split = normalized.split('&').map((p) => p.split('='));
        return split.every(([name, value], i) => {
          if (i === 0) return true;
          const [prevName, prevValue] = split[i - 1]!;
          const bytes = (s: string | undefined) => Buffer.from(s ?? '', 'ascii');
          const byName = Buffer.compare(bytes(prevName), bytes(name));
          return (
            byName < 0 || (byName === 0 && Buffer.compare(bytes(prevValue), bytes(value)) <= 0)
          );
        });
      }),
    );
  });

  it('keeps every pair, so the normalized string decodes back to the same multiset', () => {
    fc.assert(
      fc.property(fc.array(pair), (pairs) => {
        const normalized = normalizeParameters(pairs);
        const back =
          normalized === ''
            ? []
            : normalized.split('&').map((p) => {
                const [n, v] = p.split('=');
                return `${percentDecode(n!)}\u0000${percentDecode(v!)}`;
              });
        assert.deepEqual(back.sort(), pairs.map(([n, v]) => `${n}\u0000${v}`).sort());
      }),
    );
  });

  it('appears in the base string percent-encoded once more (§3.4.1.1 step 5)', () => {
    const target = { method: 'GET', scheme: 'http', host: 'example.com', path: '/' };
    fc.assert(
      fc.property(fc.array(pair), (pairs) => {
        const expected = `GET&http%3A%2F%2Fexample.com%2F&${percentEncode(normalizeParameters(pairs))}`;
        assert.equal(signatureBaseString(target, pairs), expected);
      }),
    );
  });
});
