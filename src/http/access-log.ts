/**
 * The server's logger and its access line. `latchkey serve` logs one line per request, so the
 * line is on the hot path: with the logger Latchkey builds itself (options `true` or
 * `{ level, stream }`), the access line is written as one string built once, in the fields
 * and order pino gives it, through a buffered asynchronous destination (one write(2) per
 * 4 KiB of lines rather than one per line), and each request's child logger is made only if
 * something logs through it. Every other line, and every logger an embedder configures
 * further, goes through pino as usual. Buffered lines are written out when the app closes,
 * at the latest every second, and at process exit.
 */
import { LogController } from 'fastify';
import type {
  FastifyBaseLogger,
  FastifyReply,
  FastifyRequest,
  FastifyServerOptions,
} from 'fastify';
import pino from 'pino';
import type { DestinationStream, LevelWithSilent, Logger } from 'pino';
import { censorSecretFields, logSerializers, redactUrl } from './log-serializers.ts';

/** Lines are held until this many bytes are waiting (pino's minLength) or a second passes. */
const BUFFER_BYTES = 4096;
const FLUSH_EVERY_MS = 1000;

const loggerDefaults = {
  serializers: logSerializers,
  formatters: { log: censorSecretFields },
};

export type LoggerOption = FastifyServerOptions['logger'];

/** What the app passes to Fastify, and how it writes out buffered lines. */
export interface ServerLogging {
  readonly fastify: Pick<FastifyServerOptions, 'logger' | 'loggerInstance' | 'childLoggerFactory'>;
  readonly logController: AccessLog;
  /** Writes out what the destination holds; resolves once it is written. */
  flush(): Promise<void>;
}

export function serverLogging(option: LoggerOption): ServerLogging {
  if (option === undefined || option === false) {
    return { fastify: { logger: false }, logController: new AccessLog(), flush: async () => {} };
  }
  const settings = option === true ? {} : (option as Record<string, unknown>);
  const ours = Object.keys(settings).every((key) => key === 'level' || key === 'stream');
  if (!ours) {
    return {
      fastify: { logger: { ...loggerDefaults, ...settings } },
      logController: new AccessLog(),
      flush: async () => {},
    };
  }
  const stream = (settings['stream'] as DestinationStream | undefined) ?? logDestination(1);
  const logger = pino(
    { ...loggerDefaults, level: (settings['level'] as LevelWithSilent | undefined) ?? 'info' },
    stream,
  );
  return {
    fastify: {
      loggerInstance: logger as unknown as FastifyBaseLogger,
      childLoggerFactory: (parent, bindings, options) =>
        new LazyChild(parent as unknown as Logger, bindings, options) as FastifyBaseLogger,
    },
    logController: new AccessLog(logger, (line) => stream.write(line)),
    flush: () =>
      new Promise<void>((resolve) => {
        if (!buffered.has(stream)) return resolve();
        // A destination already ended (after a broken pipe) answers with an error: nothing
        // is left to wait for.
        (stream as Destination).flush(() => resolve());
      }),
  };
}

/**
 * The buffered destination the access log writes to: a file descriptor (1, standard output,
 * for `latchkey serve`) or a file path. Pass it as the logger's `stream` to log elsewhere as
 * `latchkey serve` does.
 */
export function logDestination(destination: number | string): Destination {
  const stream = pino.destination({
    dest: destination,
    sync: false,
    minLength: BUFFER_BYTES,
    periodicFlush: FLUSH_EVERY_MS,
  });
  buffered.add(stream);
  return stream;
}

type Destination = ReturnType<typeof pino.destination>;
/** The destinations logDestination made, which hold lines until they are flushed. */
const buffered = new WeakSet<object>();

/**
 * A request's child logger, made on its first use: most requests log nothing but their
 * access line, which does not need one.
 */
class LazyChild {
  readonly #parent: Logger;
  readonly #bindings: pino.Bindings;
  readonly #options: pino.ChildLoggerOptions;
  #made: Logger | undefined;

  constructor(parent: Logger, bindings: pino.Bindings, options: pino.ChildLoggerOptions) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#options = options;
  }

  get #logger(): Logger {
    this.#made ??= this.#parent.child(this.#bindings, this.#options);
    return this.#made;
  }

  get level(): string {
    return this.#made?.level ?? this.#options.level ?? this.#parent.level;
  }

  set level(level: string) {
    this.#logger.level = level;
  }

  /** Answered without making the child: a route's own level (logLevel) or its parent's. */
  isLevelEnabled(level: string): boolean {
    if (this.#made !== undefined) return this.#made.isLevelEnabled(level);
    const own = this.#options.level;
    if (own === undefined) return this.#parent.isLevelEnabled(level);
    const values = this.#parent.levels.values;
    return own !== 'silent' && (values[level] ?? 0) >= (values[own] ?? Infinity);
  }

  fatal(...args: Parameters<Logger['fatal']>): void {
    this.#logger.fatal(...args);
  }
  error(...args: Parameters<Logger['error']>): void {
    this.#logger.error(...args);
  }
  warn(...args: Parameters<Logger['warn']>): void {
    this.#logger.warn(...args);
  }
  info(...args: Parameters<Logger['info']>): void {
    this.#logger.info(...args);
  }
  debug(...args: Parameters<Logger['debug']>): void {
    this.#logger.debug(...args);
  }
  trace(...args: Parameters<Logger['trace']>): void {
    this.#logger.trace(...args);
  }
  silent(): void {}

  child(bindings: pino.Bindings, options?: pino.ChildLoggerOptions): Logger {
    return this.#logger.child(bindings, options);
  }
}

/**
 * One access line per request, written after the answer: method, redacted URL, address,
 * status and time. Fastify's default writes two ("incoming request", then "request
 * completed"), which costs twice the log volume for the same facts.
 */
export class AccessLog extends LogController {
  readonly #write: ((line: string) => void) | undefined;
  readonly #base: string;

  /** With a logger and its stream's write, the line is built here rather than by pino. */
  constructor(logger?: Logger, write?: (line: string) => void) {
    super();
    this.#write = write;
    // pino's bindings of the root logger as it writes them: `,"pid":…,"hostname":"…"`.
    this.#base =
      logger === undefined
        ? ''
        : String((logger as unknown as Record<symbol, unknown>)[pino.symbols.chindingsSym] ?? '');
  }

  override incomingRequest(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    if (this.isLogDisabled(request)) return;
    if (!error && this.#write !== undefined) {
      // The request's own logger decides: a route may set its own level (logLevel).
      if (!(reply.log as unknown as LazyChild).isLevelEnabled('info')) return;
      // The line pino writes for the object below, field for field (test/ops/access-log.test.ts).
      this.#write(
        `{"level":30,"time":${Date.now()}${this.#base},"reqId":${JSON.stringify(request.id)},` +
          `"req":{"method":${JSON.stringify(request.method)},"url":${JSON.stringify(redactUrl(request.url))}` +
          `${request.ip === undefined ? '' : `,"remoteAddress":${JSON.stringify(request.ip)}`}},"res":{"statusCode":${reply.statusCode}},` +
          `"responseTime":${reply.elapsedTime},"msg":"request completed"}\n`,
      );
      return;
    }
    const line = { req: request, res: reply, responseTime: reply.elapsedTime };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}
