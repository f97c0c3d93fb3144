/**
 * `latchkey request`: a signed `curl` with a saved profile (like twurl). Prints the status
 * on stderr and the body on stdout, and exits 1 when the status is not 2xx.
 */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { InvalidArgumentError, Option } from 'commander';
import { createSigningFetch, encodeForm } from '../../client/index.ts';
import type { Parameter } from '../../protocol/index.ts';
import { sendOrFail } from '../arguments.ts';
import { CommandFailure, UsageError } from '../errors.ts';
import { note } from '../output.ts';
import { DEFAULT_PROFILE, loadProfile } from '../profiles.ts';
import type { Profile } from '../profiles.ts';

interface RequestOptions {
  data?: Parameter[];
  header?: [string, string][];
  profile: string;
  query?: boolean;
  body?: boolean;
  signatureMethod?: string;
}

function dataPair(value: string, previous: Parameter[] = []): Parameter[] {
  const equals = value.indexOf('=');
  const pair: Parameter =
    equals === -1 ? [value, ''] : [value.slice(0, equals), value.slice(equals + 1)];
  return [...previous, pair];
}

function headerPair(value: string, previous: [string, string][] = []): [string, string][] {
  const colon = value.indexOf(':');
  if (colon < 1) throw new InvalidArgumentError("must look like 'Name: value'");
  return [...previous, [value.slice(0, colon).trim(), value.slice(colon + 1).trim()]];
}

/** A path is taken relative to the profile's server; anything else must be an absolute URL. */
function targetUrl(given: string, profile: Profile): URL {
  try {
    if (given.startsWith('/')) {
      const base = new URL(profile.server.endsWith('/') ? profile.server : `${profile.server}/`);
      return new URL(given.slice(1), base);
    }
    const url = new URL(given);
    if (/^https?:$/.test(url.protocol)) return url;
  } catch {
    // reported below
  }
  throw new UsageError(`${given}: give an absolute http(s) URL or a path such as /api/me`);
}

function clientOf(profile: Profile) {
  if (profile.privateKeyFile === undefined) return profile.client;
  try {
    return { ...profile.client, privateKey: readFileSync(profile.privateKeyFile, 'utf8') };
  } catch {
    throw new CommandFailure(`cannot read the private key file ${profile.privateKeyFile}`);
  }
}

export function registerRequest(program: Command): void {
  program
    .command('request')
    .description('send a request signed with a saved profile and print the answer')
    .argument('<method-or-url>', 'the HTTP method (default GET, or POST with -d), or the URL')
    .argument('[url]', "the URL, or a path on the profile's server such as /api/me")
    .option(
      '-d, --data <name=value>',
      'a parameter (repeatable): query for GET, else form body',
      dataPair,
    )
    .option(
      '-H, --header <header>',
      "a header such as 'Accept: application/json' (repeatable)",
      headerPair,
    )
    .option('--profile <name>', 'the profile saved by `latchkey authorize`', DEFAULT_PROFILE)
    .addOption(new Option('--query', 'send the protocol parameters in the query').conflicts('body'))
    .addOption(new Option('--body', 'send the protocol parameters in the form body'))
    .option('--signature-method <method>', "override the profile's signature method")
    .addHelpText(
      'after',
      '\nExamples:\n  latchkey request /api/me\n  latchkey request POST http://127.0.0.1:8080/api/me -d status=hello',
    )
    .action(async (first: string, second: string | undefined, options: RequestOptions) => {
      const data = options.data ?? [];
      const method = (
        second === undefined ? (data.length > 0 ? 'POST' : 'GET') : first
      ).toUpperCase();
      if (!/^[A-Z]+$/.test(method)) throw new UsageError(`${first}: not an HTTP method`);
      const profile = loadProfile(options.profile);
      const url = targetUrl(second ?? first, profile);
      const inQuery = method === 'GET' || method === 'HEAD' || method === 'DELETE';
      if (inQuery && data.length > 0) {
        const existing = url.search.length > 1 ? `${url.search.slice(1)}&` : '';
        url.search = existing + encodeForm(data);
      }
      if (inQuery && options.body === true) {
        throw new UsageError(`--body needs a method with a form body, not ${method}`);
      }
      const send = createSigningFetch({
        client: clientOf(profile),
        token: profile.token,
        signatureMethod: options.signatureMethod ?? profile.signatureMethod,
        transmission: options.query === true ? 'query' : options.body === true ? 'body' : 'header',
      });
      const response = await sendOrFail(url.toString(), () =>
        send(url, {
          method,
          headers: Object.fromEntries(options.header ?? []),
          ...(inQuery || data.length === 0
            ? {}
            : {
                body: new URLSearchParams(
                  data.map(([name, value]): [string, string] => [name, value]),
                ),
              }),
        }),
      );
      note(`HTTP ${response.status} ${response.statusText}`);
      const body = await response.text();
      process.stdout.write(body.endsWith('\n') || body === '' ? body : `${body}\n`);
      if (response.status < 200 || response.status > 299) process.exitCode = 1;
    });
}
