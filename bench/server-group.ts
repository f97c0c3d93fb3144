/**
 * Starts the processes behind one server definition on the server core: one server, or for
 * the gateway an upstream and Latchkey in front of it, for the bare proxy an upstream and
 * bench/servers/bare-proxy.ts in front of it, for the Fastify proxy an upstream and
 * bench/servers/fastify-proxy.ts in front of it, for forward-auth an upstream, Latchkey, and
 * nginx (bench/servers/nginx-edge.ts) in front of the upstream asking Latchkey.
 */
import { PUBLIC_PREFIX } from './faults/slow-upload.ts';
import { startServer } from './processes.ts';
import type { ServerProcess } from './processes.ts';
import type { ServerDef } from './scenarios.ts';
import { SERVE_NODE_FLAGS } from './serve-flags.ts';

export interface ServerGroup {
  readonly main: ServerProcess;
  readonly upstream: ServerProcess | undefined;
  /** Every process that serves a request of the group's scenarios, for its CPU time. */
  readonly pids: readonly number[];
  stop(): Promise<void>;
}

export interface GroupSettings {
  /** Scratch directory holding `<server id>.db`. */
  readonly dir: string;
  readonly pin: string | undefined;
  /** BENCH_CREDENTIALS for the lean verifier. */
  readonly leanEnv: string;
  /** More arguments for the Latchkey server (e.g. `--profile-file FILE`). */
  readonly latchkeyArgs?: readonly string[] | undefined;
}

export async function startGroup(def: ServerDef, settings: GroupSettings): Promise<ServerGroup> {
  const options = { pin: settings.pin };
  // Latchkey runs with the Node flags `npm start` gives it, and any its definition adds.
  const latchkeyOptions = {
    ...options,
    nodeFlags: [...SERVE_NODE_FLAGS, ...(def.nodeFlags ?? [])],
  };
  const latchkey = [
    'bench/servers/latchkey.ts',
    '--database',
    `${settings.dir}/${def.id}.db`,
    ...(settings.latchkeyArgs ?? []),
  ];
  let upstream: ServerProcess | undefined;
  let main: ServerProcess;
  // Processes beside the main server and the upstream (forward-auth's Latchkey).
  const others: ServerProcess[] = [];
  switch (def.id) {
    case 'bare-http':
      main = await startServer(['bench/servers/bare-http.ts'], options);
      break;
    case 'bare-fastify':
      main = await startServer(['bench/servers/bare-fastify.ts'], options);
      break;
    case 'lean':
      main = await startServer(['bench/servers/lean-verifier.ts'], {
        ...options,
        env: { BENCH_CREDENTIALS: settings.leanEnv },
      });
      break;
    case 'passport':
    case 'oauthlib':
      // The lean verifier's in-memory credentials, which the scenario signs with.
      main = await startServer(
        [
          def.id === 'passport'
            ? 'bench/servers/passport-http-oauth.ts'
            : 'bench/servers/oauthlib-gunicorn.ts',
        ],
        { ...options, env: { BENCH_CREDENTIALS: settings.leanEnv } },
      );
      break;
    case 'latchkey-logged':
      main = await startServer([...latchkey, '--log-level', 'info'], latchkeyOptions);
      break;
    case 'gateway':
    case 'bare-proxy':
    case 'fastify-proxy': {
      // Answering once a body is in, as an API does, for the slow-upload attack.
      upstream = await startServer(
        ['bench/servers/bare-http.ts', ...(def.id === 'gateway' ? ['--read-bodies'] : [])],
        options,
      );
      // One public prefix, for the slow-upload attack's unsigned uploads (bench/faults/).
      const rules = JSON.stringify([{ path: `${PUBLIC_PREFIX}/*`, access: 'public' }]);
      const front =
        def.id === 'gateway'
          ? [...latchkey, '--gateway-rules', rules]
          : def.id === 'bare-proxy'
            ? ['bench/servers/bare-proxy.ts']
            : ['bench/servers/fastify-proxy.ts'];
      try {
        main = await startServer(
          [...front, '--upstream', `http://127.0.0.1:${upstream.port}`],
          def.id === 'gateway' ? latchkeyOptions : options,
        );
      } catch (error) {
        await upstream.stop();
        throw error;
      }
      break;
    }
    case 'forward-auth': {
      upstream = await startServer(['bench/servers/bare-http.ts'], options);
      try {
        others.push(await startServer([...latchkey, '--forward-auth'], latchkeyOptions));
        main = await startServer(
          [
            'bench/servers/nginx-edge.ts',
            '--latchkey',
            String(others[0]!.port),
            '--upstream',
            String(upstream.port),
          ],
          options,
        );
      } catch (error) {
        for (const other of others) await other.stop();
        await upstream.stop();
        throw error;
      }
      break;
    }
    default:
      main = await startServer(latchkey, latchkeyOptions);
  }
  const reported = (process: ServerProcess) =>
    Array.isArray(process.info['pids']) ? (process.info['pids'] as number[]) : [process.pid];
  return {
    main,
    upstream,
    pids: [main, upstream, ...others].flatMap((process) =>
      process === undefined ? [] : reported(process),
    ),
    stop: async () => {
      await main.stop();
      for (const other of others) await other.stop();
      await upstream?.stop();
    },
  };
}
