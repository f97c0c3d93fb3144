/**
 * Callback rules (§2.1, §2.2): `oob` or an absolute URI; where the client registered
 * callbacks, one of them exactly, so the authorization page can never send a verifier to
 * an attacker. The redirect appends oauth_token and oauth_verifier after any existing query.
 */
import { OAuthError, percentEncode } from '../../protocol/index.ts';
import type { Client } from '../../store/types.ts';
import { isLoopback } from '../loopback.ts';

const MAX_CALLBACK_LENGTH = 2048;

/** A URI scheme for an app (`myapp:`), as RFC 3986 §3.1 allows; never script-capable ones. */
const DANGEROUS_SCHEMES = new Set(['javascript', 'data', 'vbscript', 'file', 'blob', 'about']);

/** Is this an absolute URI we could ever redirect to? Returns the parsed URL or undefined. */
export function parseCallbackUri(value: string): URL | undefined {
  if (value.length > MAX_CALLBACK_LENGTH || /[\s<>"]/.test(value)) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  const scheme = url.protocol.slice(0, -1);
  if (DANGEROUS_SCHEMES.has(scheme)) return undefined;
  if ((scheme === 'http' || scheme === 'https') && url.hostname === '') return undefined;
  return url;
}

/** §2.1: checks `oauth_callback` at the temporary credential request (400 on refusal). */
export function checkCallback(callback: string, client: Client): string {
  if (callback === 'oob') return callback;
  const url = parseCallbackUri(callback);
  const rejected = (why: string) =>
    new OAuthError('parameter_rejected', why, {
      advice: { oauth_parameters_rejected: 'oauth_callback' },
    });
  if (url === undefined) {
    throw rejected('oauth_callback must be "oob" or an absolute URI.');
  }
  const scheme = url.protocol.slice(0, -1);
  if (client.callbacks.length > 0) {
    if (!client.callbacks.includes(callback)) {
      throw rejected('oauth_callback is not one of the callback URIs registered for this client.');
    }
  } else if (scheme !== 'http' && scheme !== 'https') {
    throw rejected('A custom-scheme oauth_callback must be registered for the client first.');
  } else if (scheme === 'http' && !isLoopback(url.hostname)) {
    // Unregistered, the verifier (and the owner) would cross the network in clear to a host
    // nobody vouched for; a loopback listener is the one http callback that stays local.
    throw rejected(
      'An oauth_callback the client did not register must use https (http only on a loopback address such as 127.0.0.1); or register it for the client.',
    );
  }
  return callback;
}

/** Whether a callback is one the client registered (the consent page says when it is not). */
export function isRegisteredCallback(callback: string, client: Client): boolean {
  return callback === 'oob' || client.callbacks.includes(callback);
}

/**
 * §2.2: the callback with the given parameters added after any existing query; a fragment
 * stays a fragment, after the query.
 */
export function callbackRedirect(callback: string, parameters: Record<string, string>): string {
  const hash = callback.indexOf('#');
  const base = hash < 0 ? callback : callback.slice(0, hash);
  const fragment = hash < 0 ? '' : callback.slice(hash);
  const added = Object.entries(parameters)
    .map(([name, value]) => `${percentEncode(name)}=${percentEncode(value)}`)
    .join('&');
  const separator = !base.includes('?') ? '?' : base.endsWith('?') || base.endsWith('&') ? '' : '&';
  return `${base}${separator}${added}${fragment}`;
}
