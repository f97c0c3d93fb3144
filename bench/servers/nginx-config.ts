/**
 * nginx as docs/edge.md configures it for forward-auth: the page's `nginx` block with only
 * the ports filled in (Latchkey's, the API's, nginx's own), wrapped in the few top-level
 * lines a private nginx needs (its pid, logs and temp folders in one scratch folder). The
 * forward-auth tests (test/edge) and the benchmark's forward-auth scenario both start it, so
 * neither can drift from the page.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const NGINX_BINARY = '/usr/sbin/nginx';

const EDGE_DOC = new URL('../../docs/edge.md', import.meta.url);
const TEMP_FOLDERS = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'];

/** The first fenced block of `language` in docs/edge.md, as written. */
export function edgeDocBlock(language: string): string {
  const text = readFileSync(EDGE_DOC, 'utf8');
  const match = new RegExp('```' + language + '\\n([\\s\\S]*?)\\n```').exec(text);
  if (match === null) throw new Error(`docs/edge.md has no ${language} block`);
  return match[1]!;
}

export interface NginxPorts {
  /** Where nginx listens (on loopback). */
  readonly port: number;
  readonly latchkeyPort: number;
  readonly upstreamPort: number;
}

/**
 * Writes `dir/nginx.conf` and the temp folders; answers the arguments that run nginx on it
 * in the foreground.
 */
export function writeNginxConfig(dir: string, ports: NginxPorts): string[] {
  for (const folder of TEMP_FOLDERS) mkdirSync(join(dir, folder), { recursive: true });
  const server = edgeDocBlock('nginx')
    .replaceAll('127.0.0.1:8080', `127.0.0.1:${ports.latchkeyPort}`)
    .replaceAll('127.0.0.1:3000', `127.0.0.1:${ports.upstreamPort}`)
    .replace('listen 80;', `listen 127.0.0.1:${ports.port};`);
  const config = [
    // As root, nginx would switch its worker to "nobody", who cannot write the temp folders.
    process.getuid?.() === 0 ? 'user root;' : '',
    'worker_processes 1;',
    `pid ${dir}/nginx.pid;`,
    `error_log ${dir}/error.log warn;`,
    'events { worker_connections 1024; }',
    'http {',
    '  access_log off;',
    ...TEMP_FOLDERS.map((folder) => `  ${folder}_temp_path ${dir}/${folder};`),
    server,
    '}',
  ].join('\n');
  writeFileSync(join(dir, 'nginx.conf'), config);
  return [
    '-p',
    dir,
    '-c',
    join(dir, 'nginx.conf'),
    '-e',
    join(dir, 'error.log'),
    '-g',
    'daemon off;',
  ];
}
