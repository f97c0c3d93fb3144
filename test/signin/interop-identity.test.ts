// The token response's user_id and screen_name (docs/identity.md "Sign in with") as real client
// libraries read them: npm `oauth` (node-oauth) hands extra parameters to the caller in
// `results`, Ruby's oauth gem in `AccessToken#params`. A real server on loopback, a temporary
// SQLite file; the owner's approval in-process.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { createRequire } from 'node:module';
import { startServer } from '../support/server.ts';
import type { TestServer } from '../support/server.ts';
import type { Client, Owner } from '../../src/store/index.ts';

/** node-oauth's callback: the extra token-response parameters come last, as `results`. */
type TokenCallback = (
  error: { statusCode: number; data?: string } | null,
  token: string,
  secret: string,
  results: Record<string, unknown>,
) => void;
interface NodeOAuth {
  getOAuthRequestToken(callback: TokenCallback): void;
  getOAuthAccessToken(
    token: string,
    secret: string,
    verifier: string,
    callback: TokenCallback,
  ): void;
}
type OAuthConstructor = new (...settings: string[]) => NodeOAuth;
const { OAuth } = createRequire(import.meta.url)('oauth') as { OAuth: OAuthConstructor };

function hasRubyOauth(): boolean {
  try {
    execFileSync('ruby', ['-e', 'require "oauth"'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe('interop: the owner named in the token response', () => {
  let server: TestServer;
  let client: Client;
  let owner: Owner;
  before(async () => {
    server = await startServer();
    owner = await server.provider.owners.create('ada', 'correct horse battery');
    client = await server.provider.clients.register({
      name: 'Sign-in app',
      tokenResponseIdentity: true,
    });
  });
  after(() => server?.close());

  it('npm oauth returns user_id and screen_name with the token', async () => {
    const oauth = new OAuth(
      `${server.url}/oauth/request_token`,
      `${server.url}/oauth/access_token`,
      client.key,
      client.secret,
      '1.0',
      'oob',
      'HMAC-SHA1',
    );
    const temporary = await new Promise<{ token: string; secret: string }>((resolve, reject) =>
      oauth.getOAuthRequestToken((error, token, secret) =>
        error ? reject(new Error(JSON.stringify(error))) : resolve({ token, secret }),
      ),
    );
    const { verifier } = await server.provider.authorization.approve(temporary.token, owner.id);
    const results = await new Promise<Record<string, unknown>>((resolve, reject) =>
      oauth.getOAuthAccessToken(
        temporary.token,
        temporary.secret,
        verifier,
        (error, _t, _s, results) =>
          error ? reject(new Error(JSON.stringify(error))) : resolve(results),
      ),
    );
    assert.equal(results.user_id, owner.subject);
    assert.equal(results.screen_name, 'ada');
  });

  it(
    'the Ruby oauth gem returns user_id and screen_name in the access token params',
    {
      skip: hasRubyOauth() ? false : 'ruby oauth gem not installed (.ci/install-interop.sh)',
    },
    async () => {
      const script = `
      require "oauth"
      consumer = OAuth::Consumer.new(ARGV[0], ARGV[1], site: ARGV[2], scheme: :header)
      request_token = consumer.get_request_token(oauth_callback: "oob")
      STDOUT.puts request_token.token
      STDOUT.flush
      verifier = STDIN.gets.strip
      access = request_token.get_access_token(oauth_verifier: verifier)
      STDOUT.puts [access.params[:user_id], access.params[:screen_name]].join(" ")
    `;
      const child = spawn('ruby', ['-e', script, client.key, client.secret, server.url]);
      let output = '';
      const lines: string[] = [];
      let wake: (() => void) | undefined;
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        output += chunk;
        const parts = output.split('\n');
        output = parts.pop()!;
        lines.push(...parts);
        wake?.();
      });
      const nextLine = async () => {
        while (lines.length === 0) await new Promise<void>((resolve) => (wake = resolve));
        return lines.shift()!;
      };
      const token = await nextLine();
      const { verifier } = await server.provider.authorization.approve(token, owner.id);
      child.stdin.end(`${verifier}\n`);
      assert.equal(await nextLine(), `${owner.subject} ada`);
    },
  );
});
