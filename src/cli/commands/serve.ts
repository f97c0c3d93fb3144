/**
 * `latchkey serve` (what `npm start` runs): opens the store, builds the provider with the
 * configured policy and the HTTP app, listens, and prints the endpoint advertisement
 * (RFC 5849 §1 item 6). SIGINT or SIGTERM close it gracefully: it drains (http/drain.ts:
 * /readyz 503, no new connection, requests in flight answered, within drainTimeoutMs; the
 * webhook worker finishes or gives back its deliveries within the same bound), closes the
 * store and exits, within shutdownTimeoutMs (exit status 1 when closing fails or outlasts
 * it); a second signal ends it at once. It refuses to start (exit 1) on a database holding
 * secrets sealed under a key not configured.
 */
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { Command } from 'commander';
import type { FastifyInstance } from 'fastify';
import type { buildServer as BuildServer } from '../../server.ts';
import { ConfigError, settingNames, spellings } from '../config/config.ts';
import type { LatchkeyConfig } from '../config/config.ts';
import type { IdentityOptions, Provider } from '../../provider/index.ts';
import { openProvider } from '../context.ts';
import { CommandFailure } from '../errors.ts';
import { chooseKeys, describeKeys } from '../secret-keys.ts';
import type { KeyChoice } from '../secret-keys.ts';
import { note, print } from '../output.ts';
import { configOf, withSettings } from '../settings-options.ts';

function readTls(config: LatchkeyConfig): { cert: string; key: string } | undefined {
  if (config.tlsCert === undefined || config.tlsKey === undefined) return undefined;
  const read = (name: 'tlsCert' | 'tlsKey', file: string): string => {
    try {
      return readFileSync(file, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
      const names = spellings(name);
      throw new ConfigError(
        name,
        'default',
        `${name} (${names.flag}): cannot read ${file} (${code})`,
      );
    }
  };
  return { cert: read('tlsCert', config.tlsCert), key: read('tlsKey', config.tlsKey) };
}

/** The identity source as configured (loadConfig checked that its settings are there). */
function identityOf(config: LatchkeyConfig): IdentityOptions {
  switch (config.identity.source) {
    case 'oidc':
      return {
        source: 'oidc',
        issuer: config.oidc.issuer!,
        clientId: config.oidc.clientId!,
        clientSecret: config.oidc.clientSecret,
        scopes: config.oidc.scopes,
        nameClaims: config.oidc.nameClaims,
      };
    case 'delegated':
      return {
        source: 'delegated',
        loginUrl: config.delegated.loginUrl!,
        adminToken: config.delegated.adminToken!,
      };
    default:
      return { source: 'local' };
  }
}

/** The URL to print: the public one, else the address we listen on. */
/** Every instance delivers webhooks from the store's queue (docs/webhooks.md). */
function startWebhooks(config: LatchkeyConfig, provider: Provider, app: FastifyInstance): void {
  provider.webhooks.startWorker(config.webhooks);
  provider.events.on('error.webhooks', (error: unknown) => {
    app.log.error({ event: 'webhooks.error', err: error }, 'webhook queue failed');
  });
  // The receiver's status or why none came; the delivery log has the rest.
  provider.events.on('webhook.failed', (facts) => {
    const { deliveryId, webhookId, type, status, error } = facts;
    app.log.warn(
      { event: 'webhook.failed', deliveryId, webhookId, type, status, error },
      'webhook not delivered',
    );
  });
}

function baseUrl(config: LatchkeyConfig, tls: boolean, address: AddressInfo): string {
  if (config.publicUrl !== undefined) return config.publicUrl;
  const wildcard = address.address === '0.0.0.0' || address.address === '::';
  const host = wildcard ? '127.0.0.1' : address.address;
  const shown = host.includes(':') ? `[${host}]` : host;
  return `${tls ? 'https' : 'http'}://${shown}:${address.port}`;
}

/** What the app is built with: the configuration, as the server's options. */
function serverOptions(
  config: LatchkeyConfig,
  provider: Provider,
  tls: { cert: string; key: string } | undefined,
): Parameters<typeof BuildServer>[0] {
  // The gateway and forward-auth tell the API who is calling under the same names.
  const identityHeaders = {
    client: config.gateway.clientHeader,
    owner: config.gateway.ownerHeader,
    ownerName: config.gateway.ownerNameHeader,
    scope: config.gateway.scopeHeader,
  };
  return {
    provider,
    paths: config.paths,
    tls,
    trustProxy: config.trustProxy,
    insecureHttp: config.insecureHttp,
    publicUrl: config.publicUrl,
    logger: config.logLevel === 'silent' ? false : { level: config.logLevel },
    bodyLimit: config.bodyLimit,
    drainTimeoutMs: config.drainTimeoutMs,
    sessionSecret: config.sessionSecret,
    browserSessionLifetimeSeconds: config.browserSessionLifetimeSeconds,
    identity: identityOf(config),
    metrics: { public: config.metricsPublic, token: config.metricsToken },
    gateway:
      config.gateway.upstream === undefined
        ? undefined
        : {
            upstream: config.gateway.upstream,
            rules: config.gateway.rules,
            identityHeaders,
            connectTimeoutMs: config.gateway.connectTimeoutMs,
            responseTimeoutMs: config.gateway.responseTimeoutMs,
            uploadTimeoutMs: config.gateway.uploadTimeoutMs,
            maxUploadsPerAddress: config.gateway.maxUploadsPerAddress,
          },
    forwardAuth: config.forwardAuth.enabled
      ? {
          path: config.forwardAuth.path,
          trustedEdges: config.forwardAuth.trustedEdges,
          rules: config.gateway.rules,
          identityHeaders,
        }
      : undefined,
    verifyToken: config.verifyToken,
    adminListener:
      config.adminPort === undefined
        ? undefined
        : { host: config.adminHost, port: config.adminPort },
  };
}

/** The server built and listening, or a CommandFailure saying why not (the store closed). */
async function listen(
  config: LatchkeyConfig,
  provider: Provider,
  tls: { cert: string; key: string } | undefined,
): Promise<FastifyInstance> {
  try {
    // Loaded here so the other commands start without the HTTP stack.
    const { buildServer } = await import('../../server.ts');
    const app = await buildServer(serverOptions(config, provider, tls));
    await app.listen({ host: config.host, port: config.port });
    return app;
  } catch (error) {
    await provider.close();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') {
      // Most often a Latchkey already running there (npm start in another terminal).
      throw new CommandFailure(
        `cannot listen on ${config.host} port ${config.port}: it is in use (another ` +
          'Latchkey already running?); choose another with --port (or LATCHKEY_PORT), ' +
          'e.g. latchkey serve --port 8081',
      );
    }
    if (code === 'EACCES' || code === 'EADDRNOTAVAIL') {
      throw new CommandFailure(`cannot listen on ${config.host} port ${config.port} (${code})`);
    }
    throw error;
  }
}

/**
 * Says where the keys sealing the secrets come from, and re-seals in the background; returns
 * the warning still to be said at the end of the banner, if any.
 */
function reportKeys(
  config: LatchkeyConfig,
  app: FastifyInstance,
  provider: Provider,
  keys: KeyChoice,
): string | undefined {
  const { level, message } = describeKeys(keys);
  // Said once: to a person at a terminal as a line of the banner, else to the log (a
  // supervisor's collector), never both (the same terminal would show it twice); a
  // warning the log level would drop is said on stderr instead.
  const logShowsWarnings = !['fatal', 'error', 'silent'].includes(config.logLevel);
  const keyWarning = level === 'warn' && (process.stdout.isTTY === true || !logShowsWarnings);
  if (!keyWarning) app.log[level]({ event: 'secrets.key' }, message);
  // Secrets in clear or under an older key are sealed under the current one, in the
  // background, a batch at a time (src/store/types.ts SealedSecretStore).
  provider.secrets
    .reseal()
    .then((resealed) => {
      if (resealed > 0) {
        app.log.info(
          { event: 'secrets.resealed', resealed },
          'secrets sealed under the current key',
        );
      }
    })
    .catch((error: unknown) => {
      app.log.error(
        { event: 'secrets.reseal-failed', err: error },
        'secrets could not be re-sealed',
      );
    });
  return keyWarning ? message : undefined;
}

/** Where the admin API listens, when it has a listener of its own (docs/admin.md). */
async function printAdminListener(
  config: LatchkeyConfig,
  app: FastifyInstance,
  tls: boolean,
): Promise<void> {
  const { adminAppOf } = await import('../../http/admin/admin-app.ts');
  const adminApp = adminAppOf(app);
  if (adminApp === undefined) return;
  const address = adminApp.server.address() as AddressInfo;
  print(`Admin API listening on ${baseUrl({ ...config, publicUrl: undefined }, tls, address)}`);
}

/** The banner: where it listens, what to set, the identity source, the advertisement. */
async function printBanner(
  config: LatchkeyConfig,
  provider: Provider,
  base: string,
): Promise<void> {
  const { advertise } = await import('../../http/routes/advertisement.ts');
  print(`Latchkey listening on ${base}`);
  const identity = identityOf(config);
  if (config.trustProxy && config.publicUrl === undefined && identity.source !== 'local') {
    // The sign-in's return address is built from publicUrl, never from Host: behind a
    // proxy without it, the identity provider sends the browser to this listen address.
    note(
      `Warning: behind a proxy without publicUrl, ${identity.source} sign-in returns the browser to ${base}, which it may not reach; set publicUrl to the URL browsers use.`,
    );
  } else if (config.trustProxy && config.publicUrl === undefined) {
    note('(behind a proxy: set publicUrl, the URL clients reach; it is what is advertised)');
  } else if (/^(0\.0\.0\.0|::|\[::\])$/.test(config.host) && config.publicUrl === undefined) {
    note(`(on every interface, --host ${config.host}; set publicUrl to advertise a public URL)`);
  }
  if (config.gateway.upstream !== undefined) {
    print(
      `Gateway mode: requests outside Latchkey's own paths are verified by the gateway rules, then forwarded to ${config.gateway.upstream}`,
    );
  }
  print(
    `Owners sign in through: ${identity.source}` +
      (identity.source === 'oidc'
        ? ` (${identity.issuer})`
        : identity.source === 'delegated'
          ? ` (${identity.loginUrl})`
          : ''),
  );
  print(`Endpoint advertisement (also at ${base}/.well-known/oauth1-provider):`);
  print(JSON.stringify(advertise(base, provider, config.paths), null, 2));
}

/**
 * SIGINT or SIGTERM close the server gracefully, within shutdownTimeoutMs; a second signal
 * ends it at once.
 */
function closeOnSignals(config: LatchkeyConfig, app: FastifyInstance, provider: Provider): void {
  const closeAll = () => provider.close();
  let closing = false;
  const shutDown = (signal: NodeJS.Signals) => {
    if (closing) {
      note(`${signal} again: exiting now.`);
      process.exit(1);
    }
    closing = true;
    note(`${signal}: closing (finishing requests in flight)…`);
    // Whatever the store is doing (refusing, silent, gone), the process ends within the
    // bound: a supervisor never has to kill it.
    const bound = setTimeout(() => {
      note(
        `latchkey: not closed within ${config.shutdownTimeoutMs} ms (shutdownTimeoutMs); exiting.`,
      );
      process.exit(1);
    }, config.shutdownTimeoutMs);
    // The drain stops the webhook worker too (http/drain.ts), before the store closes.
    app
      .close()
      .then(closeAll)
      .then(
        () => {
          note('Closed.');
          // Nothing is left to keep the process alive; if something is, the bound ends it.
          bound.unref();
        },
        (error: unknown) => {
          note(`latchkey: error while closing: ${error instanceof Error ? error.message : error}`);
          process.exit(1);
        },
      );
  };
  process.on('SIGINT', shutDown).on('SIGTERM', shutDown);
}

export function registerServe(program: Command): void {
  withSettings(program.command('serve'), settingNames)
    .description('run the provider: the three flow endpoints, the authorization pages and /api/me')
    .addHelpText(
      'after',
      '\nExamples:\n  latchkey serve\n  latchkey serve --host 0.0.0.0 --port 8443 --tls-cert cert.pem --tls-key key.pem',
    )
    .action(async (_options: object, command: Command) => {
      const config = configOf(command);
      const tls = readTls(config);
      // Before the store opens: a new key file is made here, and said so below.
      const keys = chooseKeys(config);
      // Refused when the database holds secrets sealed under a key not given (never a server
      // that answers 503 to every request reading one).
      const provider = await openProvider(config, { keys, checkKeys: true });
      const app = await listen(config, provider, tls);
      const keyWarning = reportKeys(config, app, provider, keys);
      startWebhooks(config, provider, app);
      const base = baseUrl(config, tls !== undefined, app.server.address() as AddressInfo);
      await printBanner(config, provider, base);
      await printAdminListener(config, app, tls !== undefined);
      // Last in the banner, where a person reading it ends.
      if (keyWarning !== undefined) note(`Warning: ${keyWarning}.`);
      closeOnSignals(config, app, provider);
    });
}
