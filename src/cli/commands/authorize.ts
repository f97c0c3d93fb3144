/**
 * `latchkey authorize`: the client's side of the three-step flow (RFC 5849 §2) in a terminal.
 * It gets temporary credentials, prints the URL the owner opens, reads the verifier the owner
 * brings back, exchanges it for token credentials and saves them to a profile.
 */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import {
  authorizationUrl,
  processTemporaryCredentialsResponse,
  processTokenCredentialsResponse,
  requestTemporaryCredentials,
  requestTokenCredentials,
} from '../../client/index.ts';
import type { ClientCredentials } from '../../client/index.ts';
import { SignatureMethodRegistry } from '../../protocol/index.ts';
import { serverUrl, sendOrFail } from '../arguments.ts';
import { discoverEndpoints } from '../discover.ts';
import { CommandFailure, UsageError } from '../errors.ts';
import { note, print } from '../output.ts';
import { DEFAULT_PROFILE, saveProfile } from '../profiles.ts';
import { readLine } from '../read-input.ts';

interface AuthorizeOptions {
  client: string;
  secret?: string;
  privateKey?: string;
  callback: string;
  signatureMethod?: string;
  scope?: string;
  profile: string;
}

/** The verifier as typed, or taken from the callback URL the owner was sent to. */
export function verifierFrom(answer: string): string {
  const trimmed = answer.trim();
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed)) {
    const fromUrl = new URL(trimmed).searchParams.get('oauth_verifier');
    if (fromUrl !== null) return fromUrl;
  }
  return trimmed;
}

const builtInMethods = new SignatureMethodRegistry();

function chooseMethod(
  options: AuthorizeOptions,
  advertised: readonly string[] | undefined,
): string {
  if (options.signatureMethod !== undefined) return options.signatureMethod;
  const wanted = options.privateKey === undefined ? 'HMAC-SHA1' : 'RSA-SHA1';
  if (advertised === undefined || advertised.includes(wanted)) return wanted;
  // Else the first advertised method of the same kind that this client can sign with: one
  // that signs the base string with the secrets (not PLAINTEXT), or with the private key.
  const kind = options.privateKey === undefined ? 'shared-secret' : 'public-key';
  const fits = (name: string) => {
    const method = builtInMethods.get(name);
    return method?.keyKind === kind && method.usesBaseString;
  };
  return advertised.find(fits) ?? wanted;
}

function readPrivateKey(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new CommandFailure(`--private-key: cannot read ${file} (${code})`);
  }
}

export function registerAuthorize(program: Command): void {
  program
    .command('authorize')
    .description('run the OAuth flow against SERVER as a client and save the token to a profile')
    .argument('<server>', "the server's base URL, e.g. http://127.0.0.1:8080", serverUrl)
    .requiredOption('--client <key>', 'client key')
    .option('--secret <secret>', 'client secret')
    .option('--private-key <file>', 'PEM private key file, for the public-key methods (RSA-*)')
    .option('--callback <uri>', 'oauth_callback: oob (enter the verifier here) or a URI', 'oob')
    .option('--signature-method <method>', 'default HMAC-SHA1 (RSA-SHA1 with --private-key)')
    .option('--scope <scope>', 'space-separated scope names to ask for')
    .option('--profile <name>', 'profile to save the credentials as', DEFAULT_PROFILE)
    .addHelpText(
      'after',
      '\nExample:\n  latchkey authorize --client "$KEY" --secret "$SECRET" http://127.0.0.1:8080\n' +
        '\nProfiles are saved in ~/.latchkey/profiles.json (mode 0600; LATCHKEY_PROFILES overrides).',
    )
    .action(async (server: string, options: AuthorizeOptions) => {
      if ((options.secret === undefined) === (options.privateKey === undefined)) {
        throw new UsageError('give the client secret with --secret, or --private-key for RSA');
      }
      const client: ClientCredentials = {
        key: options.client,
        secret: options.secret,
        privateKey:
          options.privateKey === undefined ? undefined : readPrivateKey(options.privateKey),
      };
      const endpoints = await discoverEndpoints(server);
      const signatureMethod = chooseMethod(options, endpoints.signatureMethods);
      const flow = { client, signatureMethod };

      const temporary = await sendOrFail(endpoints.requestToken, async () =>
        processTemporaryCredentialsResponse(
          await requestTemporaryCredentials(endpoints.requestToken, {
            ...flow,
            callback: options.callback,
            ...(options.scope === undefined ? {} : { scope: options.scope }),
          }),
        ),
      );
      print('Open this URL in a browser, sign in and allow access:');
      print();
      print(`  ${authorizationUrl(endpoints.authorize, temporary)}`);
      print();
      const answer = await readLine(
        options.callback === 'oob'
          ? 'Then enter the verifier the page shows: '
          : 'Then paste the URL you were sent to (or its oauth_verifier): ',
      );
      const verifier = answer === undefined ? '' : verifierFrom(answer);
      if (verifier === '') throw new CommandFailure('no verifier given; nothing was saved');

      const token = await sendOrFail(endpoints.accessToken, async () =>
        processTokenCredentialsResponse(
          await requestTokenCredentials(endpoints.accessToken, { ...flow, temporary, verifier }),
        ),
      );
      const path = saveProfile(options.profile, {
        server,
        client: { key: options.client, secret: options.secret },
        privateKeyFile: options.privateKey,
        token,
        signatureMethod,
        savedAt: new Date().toISOString(),
      });
      note('');
      print(`Authorized. Saved profile "${options.profile}" in ${path}.`);
      print(
        `Try it: npx latchkey request${options.profile === DEFAULT_PROFILE ? '' : ` --profile ${options.profile}`} /api/me`,
      );
    });
}
