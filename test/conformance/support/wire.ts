/**
 * Edits a signed request on the wire after signing (a changed, added, moved or removed
 * protocol parameter), and checks error answers the way every suite expects them: the
 * status of the spec's error table, a form body with oauth_problem and oauth_problem_advice
 * (Problem Reporting), and `WWW-Authenticate: OAuth realm="…"` on every 401 (§3.5.1).
 */
import assert from 'node:assert/strict';
import {
  buildAuthorizationHeader,
  parseAuthorizationHeader,
  parseFormUrlEncoded,
} from '../../../src/protocol/index.ts';
import type { Parameter, Transmission } from '../../../src/protocol/index.ts';
import { encodeForm } from '../../../src/client/index.ts';
import type { RawRequest, RawResponse } from './http.ts';

export type Wire = RawRequest & { readonly headers: Record<string, string> };
export type PairsEdit = (pairs: Parameter[]) => Parameter[];

/** Applies `edit` to the pairs where the protocol parameters travel. */
export function editProtocol(wire: Wire, transmission: Transmission, edit: PairsEdit): Wire {
  if (transmission === 'header') {
    const parsed = parseAuthorizationHeader(wire.headers['Authorization'] ?? '');
    const pairs = edit([...(parsed?.parameters ?? [])]);
    return {
      ...wire,
      headers: { ...wire.headers, Authorization: buildAuthorizationHeader(pairs) },
    };
  }
  if (transmission === 'body') {
    const body = typeof wire.body === 'string' ? wire.body : '';
    return { ...wire, body: encodeForm(edit(parseFormUrlEncoded(body))) };
  }
  return editQuery(wire, edit);
}

/** Applies `edit` to the query pairs (the URL is rebuilt with RFC 5849 encoding). */
export function editQuery(wire: Wire, edit: PairsEdit): Wire {
  const question = wire.url.indexOf('?');
  const base = question < 0 ? wire.url : wire.url.slice(0, question);
  const pairs = edit(question < 0 ? [] : parseFormUrlEncoded(wire.url.slice(question + 1)));
  return { ...wire, url: pairs.length === 0 ? base : `${base}?${encodeForm(pairs)}` };
}

/** Replaces the value of one parameter (every occurrence). */
export const setValue =
  (name: string, value: string): PairsEdit =>
  (pairs) =>
    pairs.map(([n, v]) => (n === name ? [n, value] : [n, v]));

export const remove =
  (name: string): PairsEdit =>
  (pairs) =>
    pairs.filter(([n]) => n !== name);

export const append =
  (name: string, value: string): PairsEdit =>
  (pairs) => [...pairs, [name, value]];

export function valueOf(wire: Wire, transmission: Transmission, name: string): string {
  let found: string | undefined;
  editProtocol(wire, transmission, (pairs) => {
    found = pairs.find(([n]) => n === name)?.[1];
    return pairs;
  });
  assert.ok(found !== undefined, `${name} is on the wire`);
  return found;
}

/**
 * The answer is the given OAuth problem: status, form body with oauth_problem and
 * oauth_problem_advice, and on a 401 the `OAuth realm` challenge.
 */
export function assertProblem(response: RawResponse, status: number, problem: string): void {
  const where = `${response.status} ${response.text.slice(0, 300)}`;
  assert.equal(response.status, status, where);
  assert.match(
    response.headers['content-type'] ?? '',
    /^application\/x-www-form-urlencoded/,
    where,
  );
  assert.equal(response.fields['oauth_problem'], problem, where);
  assert.ok((response.fields['oauth_problem_advice'] ?? '').length > 0, where);
  if (status === 401) {
    assert.match(response.headers['www-authenticate'] ?? '', /^OAuth realm="[^"]+"/, where);
  }
}

export function assertOk(response: RawResponse): void {
  assert.equal(response.status, 200, `${response.status} ${response.text.slice(0, 300)}`);
}
