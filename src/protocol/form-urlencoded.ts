/**
 * `application/x-www-form-urlencoded` parsing as RFC 5849 §3.4.1.3.1 requires for the query
 * and a form body: pairs split on "&", name from value on the first "=", "+" is a space,
 * then percent-decoding. Empty values stay; repeated names stay as separate pairs.
 */
import { percentDecode } from './percent-encoding.ts';
import type { Parameter } from './types.ts';

export function parseFormUrlEncoded(text: string): Parameter[] {
  const pairs: Parameter[] = [];
  if (text === '') return pairs;
  for (const piece of text.split('&')) {
    if (piece === '') continue; // "a=1&&b=2": an empty element carries no parameter
    const eq = piece.indexOf('=');
    const rawName = eq < 0 ? piece : piece.slice(0, eq);
    const rawValue = eq < 0 ? '' : piece.slice(eq + 1);
    pairs.push([decodeFormComponent(rawName), decodeFormComponent(rawValue)]);
  }
  return pairs;
}

function decodeFormComponent(raw: string): string {
  return percentDecode(raw.includes('+') ? raw.replaceAll('+', ' ') : raw);
}
