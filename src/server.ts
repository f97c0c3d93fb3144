/**
 * The whole Latchkey server: the HTTP app with the people-facing pages and the operator console. The CLI's `serve`,
 * the browser tests and anyone embedding Latchkey start here.
 */
import { buildApp } from './http/app.ts';
import type { AppOptions } from './http/options.ts';
import { consolePlugin } from './web/console/index.ts';
import { webPlugin } from './web/index.ts';

export function buildServer(options: AppOptions) {
  return buildApp({ ...options, pages: webPlugin, console: consolePlugin });
}
