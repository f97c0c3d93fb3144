/**
 * Finding a server's three endpoints (RFC 5849 §1 item 6: the server advertises them; how is
 * left open). Latchkey serves a JSON document at /.well-known/oauth1-provider; a server
 * without one is assumed to use Latchkey's default paths.
 */
import { defaultPaths } from '../http/options.ts';
import { CommandFailure } from './errors.ts';

export interface Endpoints {
  readonly requestToken: string;
  readonly authorize: string;
  readonly accessToken: string;
  readonly signatureMethods: readonly string[] | undefined;
  /** True when they came from the server's advertisement. */
  readonly advertised: boolean;
}

export const ADVERTISEMENT_PATH = '/.well-known/oauth1-provider';

function absolute(server: string, path: string): string {
  return new URL(path.replace(/^\//, ''), server.endsWith('/') ? server : `${server}/`).toString();
}

export async function discoverEndpoints(server: string): Promise<Endpoints> {
  const fallback: Endpoints = {
    requestToken: absolute(server, defaultPaths.requestToken),
    authorize: absolute(server, defaultPaths.authorize),
    accessToken: absolute(server, defaultPaths.accessToken),
    signatureMethods: undefined,
    advertised: false,
  };
  let response: Response;
  try {
    response = await fetch(new URL(ADVERTISEMENT_PATH, server), {
      headers: { accept: 'application/json' },
      signal: AbortSignal.timeout(10_000),
    });
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : '';
    throw new CommandFailure(`cannot reach ${server}${cause ? ` (${cause})` : ''}`);
  }
  if (!response.ok) return fallback;
  let document: Record<string, unknown>;
  try {
    document = (await response.json()) as Record<string, unknown>;
  } catch {
    return fallback;
  }
  const text = (name: string) =>
    typeof document[name] === 'string' ? (document[name] as string) : undefined;
  const requestToken = text('request_token_endpoint');
  const authorize = text('authorization_endpoint');
  const accessToken = text('token_endpoint');
  if (requestToken === undefined || authorize === undefined || accessToken === undefined) {
    return fallback;
  }
  const methods = document['signature_methods_supported'];
  return {
    requestToken,
    authorize,
    accessToken,
    signatureMethods: Array.isArray(methods)
      ? methods.filter((m): m is string => typeof m === 'string')
      : undefined,
    advertised: true,
  };
}
