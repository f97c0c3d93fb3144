/**
 * The admin API on a listener of its own (`adminHost`/`adminPort`, docs/admin.md "A listener of
 * its own"), as ORY Hydra keeps its admin port: bound to an address the public network does
 * not reach, while the public listener then serves no `/admin/` route but the login app's
 * accept and reject. It has its own `/openapi.json`, describing the admin API alone. It
 * listens when the public app does and closes before it; the provider stays the public app's.
 */
import Fastify from 'fastify';
import type { FastifyInstance, FastifyPluginAsync, FastifyServerOptions } from 'fastify';
import type { Provider } from '../../provider/index.ts';
import type { ConsoleContext } from '../app.ts';
import { serverLogging } from '../access-log.ts';
import { registerOpenApi } from '../openapi.ts';
import { publicBaseUrl } from '../public-url.ts';
import { createRequestIds } from '../request-id.ts';
import { registerAdminApi } from './index.ts';
import { adminErrorHandler } from './problem.ts';

export interface AdminListener {
  readonly host: string;
  /** 0 picks a free port (adminAppOf(app).server.address() says which). */
  readonly port: number;
}

const adminApps = new WeakMap<FastifyInstance, FastifyInstance>();

/** The admin API's own app behind `app`, when it has one. */
export function adminAppOf(app: FastifyInstance): FastifyInstance | undefined {
  return adminApps.get(app);
}

/** Builds the admin app and ties it to `app`: it listens on `listener` when `app` is ready. */
export async function attachAdminListener(
  app: FastifyInstance,
  options: {
    readonly provider: Provider;
    readonly listener: AdminListener;
    readonly logger: FastifyServerOptions['logger'];
    readonly trustProxy: boolean;
    readonly tls?: { readonly cert: string; readonly key: string } | undefined;
    /** The operator console, served here beside the API. */
    readonly console?:
      | {
          readonly plugin: FastifyPluginAsync<ConsoleContext>;
          readonly context: ConsoleContext;
        }
      | undefined;
  },
): Promise<FastifyInstance> {
  const logging = serverLogging(options.logger);
  const admin = Fastify({
    ...logging.fastify,
    ...(options.tls === undefined
      ? {}
      : { https: { cert: options.tls.cert, key: options.tls.key } }),
    trustProxy: options.trustProxy,
    requestIdHeader: false,
    genReqId: createRequestIds(),
    logController: logging.logController,
    ajv: { customOptions: { coerceTypes: false } },
  }) as unknown as FastifyInstance;
  admin.addHook('onClose', () => logging.flush());
  admin.setSerializerCompiler(() => (data) => JSON.stringify(data));
  admin.setErrorHandler(adminErrorHandler);
  const origin = { tls: options.tls !== undefined };
  await registerOpenApi(admin, { baseUrlOf: (request) => publicBaseUrl(request, origin) });
  await registerAdminApi(admin, options.provider);
  if (options.console !== undefined) {
    await admin.register(options.console.plugin, options.console.context);
  }
  adminApps.set(app, admin);
  app.addHook('onReady', async () => {
    await admin.listen({ host: options.listener.host, port: options.listener.port });
  });
  app.addHook('preClose', async () => {
    await admin.close();
  });
  return admin;
}
