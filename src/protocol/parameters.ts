/**
 * RFC 5849 §3.4.1.3.1 and §3.5: collect the request parameters from the three places
 * (Authorization header, form body, query), and hold the protocol to one place per request.
 */
import { parseAuthorizationHeader, printable } from './authorization-header.ts';
import { OAuthError } from './errors.ts';
import { parseFormUrlEncoded } from './form-urlencoded.ts';
import type { Parameter, Transmission } from './types.ts';

export interface ParameterSources {
  /** The `Authorization` header value, if any. */
  readonly authorization?: string | undefined;
  /** The raw query string, without "?" (still encoded). */
  readonly query?: string | undefined;
  /** The raw body text; read only when `contentType` is form-urlencoded (§3.4.1.3.1). */
  readonly body?: string | undefined;
  readonly contentType?: string | undefined;
}

export interface CollectedParameters {
  /** Where the `oauth_*` parameters were found; undefined when there were none. */
  readonly transmission: Transmission | undefined;
  /** Every `oauth_*` parameter, each at most once, including `oauth_signature`. */
  readonly protocol: ReadonlyMap<string, string>;
  /** What the signature covers: every pair except `oauth_signature` and `realm`. */
  readonly signed: Parameter[];
  /** Non-protocol query pairs, decoded, in the order received. */
  readonly query: Parameter[];
  /** Non-protocol form-body pairs, decoded, in the order received. */
  readonly form: Parameter[];
  /**
   * Non-protocol `Authorization` header pairs that are not also in the query or the form body,
   * decoded, in the order received. All of them are signed (§3.4.1.3.1); a pair the client
   * also sent in the query or body (some clients copy every parameter into the header) is
   * given to the application once, where it belongs.
   */
  readonly header: Parameter[];
  readonly realm: string | undefined;
}

/** True for `application/x-www-form-urlencoded`, with or without parameters such as charset. */
export function isFormContentType(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const semicolon = contentType.indexOf(';');
  const type = (semicolon < 0 ? contentType : contentType.slice(0, semicolon)).trim();
  return type.toLowerCase() === 'application/x-www-form-urlencoded';
}

export function collectParameters(sources: ParameterSources): CollectedParameters {
  const header =
    sources.authorization === undefined
      ? undefined
      : parseAuthorizationHeader(sources.authorization);
  const queryPairs = sources.query ? parseFormUrlEncoded(sources.query) : [];
  const bodyPairs =
    sources.body && isFormContentType(sources.contentType) ? parseFormUrlEncoded(sources.body) : [];

  const protocol = new Map<string, string>();
  let transmission: Transmission | undefined;
  const signed: Parameter[] = [];
  const query: Parameter[] = [];
  const form: Parameter[] = [];
  const headerRest: Parameter[] = [];

  const take = (pairs: readonly Parameter[], place: Transmission, rest: Parameter[]) => {
    for (const pair of pairs) {
      const [name, value] = pair;
      if (name.startsWith('oauth_')) {
        if (transmission !== undefined && transmission !== place) {
          throw new OAuthError(
            'parameter_rejected',
            `Protocol parameters were sent in both the ${transmission} and the ${place}; use one place (RFC 5849 §3.5).`,
            { advice: { oauth_parameters_rejected: name } },
          );
        }
        transmission = place;
        if (protocol.has(name)) {
          throw new OAuthError(
            'parameter_rejected',
            `The protocol parameter "${printable(name)}" was given more than once.`,
            { advice: { oauth_parameters_rejected: name } },
          );
        }
        protocol.set(name, value);
        if (name === 'oauth_signature') continue;
      } else {
        rest.push(pair);
      }
      signed.push(pair);
    }
  };

  if (header !== undefined) take(header.parameters, 'header', headerRest);
  take(bodyPairs, 'body', form);
  take(queryPairs, 'query', query);

  return {
    transmission,
    protocol,
    signed,
    query,
    form,
    header: headerRest.length === 0 ? headerRest : withoutCopies(headerRest, query, form),
    realm: header?.realm,
  };
}

/** The header pairs that are not, name and value alike, a query or form pair too. */
function withoutCopies(
  header: readonly Parameter[],
  query: readonly Parameter[],
  form: readonly Parameter[],
): Parameter[] {
  const key = ([name, value]: Parameter) => `${name}\0${value}`;
  const elsewhere = new Set([...query, ...form].map(key));
  return header.filter((pair) => !elsewhere.has(key(pair)));
}
