/**
 * Where a CPU profile's frame belongs: its source location, shortened, and its area (one of
 * our layers, a package, Node's internals, native work by what it is). Shared by the profile
 * summary (bench/profile.ts) and the flame graph (bench/report/flame-graph.ts).
 */
import { relative } from 'node:path';
import { ROOT } from './processes.ts';

/** A node of a V8 `.cpuprofile`. */
export interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

export function locate(node: ProfileNode): string {
  return `${shorten(node.callFrame.url)}:${node.callFrame.lineNumber + 1}`;
}

/** Native work by what it is: OpenSSL, socket I/O, SQLite, or else by its caller's area. */
export function nativeAreaOf(callerWhere: string): string {
  if (callerWhere.startsWith('node:internal/crypto')) return 'OpenSSL (native, via node:crypto)';
  if (/^node:(internal\/stream_base_commons|net|internal\/net)/.test(callerWhere)) {
    return 'socket I/O (native)';
  }
  if (callerWhere.startsWith('src/store')) return 'SQLite (native, via src/store)';
  return `${areaOf(callerWhere)} (native)`;
}

export function areaOf(where: string): string {
  if (where === '') return 'native, no JavaScript caller';
  if (where.startsWith('src/')) return where.split('/').slice(0, 2).join('/');
  if (where.startsWith('bench/')) return 'bench server script';
  if (where.startsWith('node:')) return 'Node.js internals';
  const parts = where.split('/');
  return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!.split(':')[0]!;
}

function shorten(url: string): string {
  const path = url.replace(/^file:\/\//, '');
  const modules = path.lastIndexOf('node_modules/');
  if (modules >= 0) return path.slice(modules + 'node_modules/'.length);
  return path.startsWith('/') ? relative(ROOT, path) : path;
}
