/**
 * The request parameters every driver sends to /api/me: each one exercises a place where
 * RFC 5849 §3.6 percent-encoding or §3.4.1.3 normalization goes wrong in practice. A case
 * has a tag so a library's known limits (drivers.ts) can leave out exactly what it cannot do.
 */
import type { Parameter } from '../../src/protocol/index.ts';

export type AwkwardTag =
  | 'space'
  | 'plus'
  | 'percent'
  | 'tilde'
  | 'ampersand'
  | 'equals'
  | 'sub-delims'
  | 'latin'
  | 'cjk'
  | 'emoji'
  | 'empty'
  | 'repeated'
  | 'awkward-name'
  | 'prefix-name';

export interface AwkwardCase {
  readonly tag: AwkwardTag;
  readonly pairs: readonly Parameter[];
}

export const awkwardCases: readonly AwkwardCase[] = [
  { tag: 'space', pairs: [['space', 'hello world']] },
  // "+" must reach the server as %2B; a bare "+" in a form or query means a space.
  { tag: 'plus', pairs: [['plus', 'a+b']] },
  // A literal "%41" catches double decoding as well as a missing encoding.
  { tag: 'percent', pairs: [['percent', '100% %41']] },
  // "~" is unreserved in §3.6 and must not become %7E in the base string.
  { tag: 'tilde', pairs: [['tilde', '~user']] },
  { tag: 'ampersand', pairs: [['ampersand', 'x&y']] },
  { tag: 'equals', pairs: [['equals', 'k=v']] },
  // encodeURIComponent leaves these alone; §3.6 encodes them.
  { tag: 'sub-delims', pairs: [['subdelims', "!*'()"]] },
  { tag: 'latin', pairs: [['latin', 'café é']] },
  { tag: 'cjk', pairs: [['cjk', '日本']] },
  // Outside the BMP: four UTF-8 octets, a surrogate pair in UTF-16.
  { tag: 'emoji', pairs: [['emoji', '🔑']] },
  { tag: 'empty', pairs: [['empty', '']] },
  // §3.4.1.3.2: both pairs are signed, sorted by value; order of arrival is kept.
  {
    tag: 'repeated',
    pairs: [
      ['repeated', 'two'],
      ['repeated', 'one'],
    ],
  },
  { tag: 'awkward-name', pairs: [['näme +=&', 'n']] },
  // §3.4.1.3.2 sorts by name, then value: "prefix" before "prefix.more", although "." < "=".
  {
    tag: 'prefix-name',
    pairs: [
      ['prefix.more', '2'],
      ['prefix', '1'],
    ],
  },
];

/** The pairs of every case whose tag is not left out, in the table's order. */
export function awkwardPairs(leftOut: Iterable<AwkwardTag> = []): Parameter[] {
  const skip = new Set(leftOut);
  return awkwardCases.filter((c) => !skip.has(c.tag)).flatMap((c) => c.pairs);
}

/** Only the pairs of the given cases, in the table's order. */
export function awkwardPairsOnly(tags: Iterable<AwkwardTag>): Parameter[] {
  const keep = new Set(tags);
  return awkwardCases.filter((c) => keep.has(c.tag)).flatMap((c) => c.pairs);
}
