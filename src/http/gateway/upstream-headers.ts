/**
 * The headers the gateway sends the upstream: the client's, less what is not for it
 * (hop-by-hop fields, `Authorization`, any copy of the identity or LTI headers, forwarding
 * headers a client wrote, Latchkey's own cookies), plus the identity of the verified caller
 * and the forwarding headers as Latchkey resolved them (docs/gateway.md).
 */
import type { FastifyRequest } from 'fastify';
import { percentEncode } from '../../protocol/index.ts';
import type { LtiLaunch } from '../../provider/index.ts';
import { latchkeyCookieNames } from '../cookie-names.ts';
import { clientOrigin } from '../incoming-request.ts';
import type { TransportSettings } from '../incoming-request.ts';
import { isLtiHeader, launchHeaders } from '../lti/lti-headers.ts';
import type { OAuthCaller } from '../middleware/caller.ts';
import { connectionOptions, isHopByHop } from './forward.ts';
import type { UpstreamHeaders } from './forward.ts';
import type { IdentityHeaderNames } from './gateway.ts';

/** A Cookie header without Latchkey's own cookies (cookie-names.ts), the rest as sent. */
export function withoutLatchkeyCookies(header: string): string {
  if (!header.includes('latchkey_')) return header;
  return header
    .split(';')
    .filter((pair) => {
      const equals = pair.indexOf('=');
      return !latchkeyCookieNames.has((equals < 0 ? pair : pair.slice(0, equals)).trim());
    })
    .map((pair) => pair.trim())
    .join('; ');
}

/** The forwarding headers the gateway always sets itself (docs/gateway.md). */
const SET_BY_GATEWAY = new Set(['x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host']);

/**
 * A header by which a proxy tells who the client is, how and to which host it came
 * (`Forwarded`, RFC 7239; `X-Forwarded-*`; `X-Real-IP`), `name` lower case with `_` read as
 * `-`, as WSGI, CGI and PHP read it.
 */
function isForwardingHeader(name: string): boolean {
  return name === 'forwarded' || name === 'x-real-ip' || name.startsWith('x-forwarded-');
}

/** Who the request was verified as: the caller, and the launch on an `lti` path. */
export interface VerifiedAs {
  readonly caller: OAuthCaller | null;
  readonly launch: LtiLaunch | null;
}

/** Builds the function that writes the upstream's headers for one request. */
export function upstreamHeadersWriter(
  names: IdentityHeaderNames,
  transport: TransportSettings,
  upstreamHost: string,
): (request: FastifyRequest, verified: VerifiedAs) => UpstreamHeaders {
  const identity = [names.client, names.owner, names.ownerName, names.scope].map((name) =>
    name.toLowerCase(),
  );
  const [client, owner, ownerName, scopeHeader] = identity as [string, string, string, string];
  const identitySpellings = new Set(identity.map((name) => name.replaceAll('_', '-')));

  /** The client's headers the upstream may see. */
  function passedOn(request: FastifyRequest): UpstreamHeaders {
    const incoming = request.raw.headers;
    // A name listed in Connection goes with it, so a client cannot use it to strip the
    // identity headers set afterwards.
    const listed = connectionOptions(incoming.connection);
    const headers: UpstreamHeaders = { host: upstreamHost };
    for (const name in incoming) {
      const value = incoming[name];
      if (value === undefined || isHopByHop(name, listed) || name === 'authorization') continue;
      // Every spelling an upstream may read as an identity header: WSGI, CGI, PHP and many
      // frameworks turn both `X-OAuth-Owner` and `X_OAuth_Owner` into HTTP_X_OAUTH_OWNER, so
      // a copy with underscores is as forged as one with hyphens.
      const spelled = name.replaceAll('_', '-');
      if (identitySpellings.has(spelled) || isLtiHeader(name)) continue;
      // Who the client is and how it came are for a proxy to say: a client's own copies are
      // dropped (they would name any address or host it likes), a trusted proxy's are kept,
      // except those set afterwards. A proxy writes them with hyphens: other spellings never pass.
      if (
        isForwardingHeader(spelled) &&
        (!transport.trustProxy || name !== spelled || SET_BY_GATEWAY.has(name))
      ) {
        continue;
      }
      headers[name] = value;
    }
    return headers;
  }

  return (request, verified) => {
    const headers = passedOn(request);
    // The client as Latchkey resolved it (the connection's peer, or what a trusted proxy
    // says), the address the rate limits and the audit trail use too.
    const origin = clientOrigin(request.raw, transport);
    headers['x-forwarded-for'] = request.ip;
    headers['x-forwarded-proto'] = origin.scheme;
    if (origin.host !== '') headers['x-forwarded-host'] = origin.host;
    // Latchkey's own session, CSRF and sign-in cookies are its credentials, not the app's:
    // the upstream gets every other cookie and never these.
    const cookies = headers['cookie'];
    if (typeof cookies === 'string') {
      const kept = withoutLatchkeyCookies(cookies);
      if (kept === '') delete headers['cookie'];
      else headers['cookie'] = kept;
    }
    const { caller, launch } = verified;
    if (caller !== null) {
      // Percent-encoded (§3.6): a key migrated from another provider may hold characters a
      // header cannot carry; a key Latchkey generated is unreserved and unchanged.
      headers[client] = percentEncode(caller.client.key);
      if (caller.owner !== null) {
        // A subject is visible ASCII (provider/accounts/owners.ts); a name may be any text, so
        // it is percent-encoded to survive as a header value.
        headers[owner] = caller.owner.subject;
        headers[ownerName] = encodeURIComponent(caller.owner.name);
      }
      if (caller.scope !== null) headers[scopeHeader] = caller.scope;
    }
    if (launch !== null) Object.assign(headers, launchHeaders(launch));
    return headers;
  };
}
