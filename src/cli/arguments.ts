/** Argument parsers and network wrapping shared by the client-side commands. */
import { InvalidArgumentError } from 'commander';
import { OAuthResponseError } from '../client/index.ts';
import { CommandFailure } from './errors.ts';

/** An absolute http(s) URL, without a trailing slash. */
export function serverUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidArgumentError('must be an absolute URL such as http://127.0.0.1:8080');
  }
  if (!/^https?:$/.test(url.protocol))
    throw new InvalidArgumentError('must be an http or https URL');
  return value.replace(/\/+$/, '');
}

/** Runs a request; a network failure becomes one line naming the URL. */
export async function sendOrFail<T>(url: string, send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (error) {
    if (error instanceof OAuthResponseError || !(error instanceof TypeError)) throw error;
    const cause = error.cause instanceof Error ? ` (${error.cause.message})` : '';
    throw new CommandFailure(`cannot reach ${url}${cause}`);
  }
}
