// docs/architecture.md, "How to add a signature method", says a method is one descriptor plus
// its vectors and that nothing else in src/ changes. That holds only while no module outside
// the descriptors learns a method's key from its name, every built-in method has independent
// vectors, and what the section names exists.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import * as protocol from '../../src/protocol/index.ts';
import { builtInSignatureMethods } from '../../src/protocol/index.ts';
import { vectors } from '../vectors/rfc5849.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const page = readFileSync(join(root, 'docs/architecture.md'), 'utf8');
const start = page.indexOf('## How to add a signature method');
const section = page.slice(start, page.indexOf('\n## ', start + 1));

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|eta)$/.test(entry.name) ? [path] : [];
  });
}

describe('docs/architecture.md: how to add a signature method', () => {
  it('names files that exist and exports that latchkey/protocol has', () => {
    assert.ok(start >= 0, 'the section is there');
    const paths = [...section.matchAll(/`((?:src|test)\/[^`\s]+)`/g)].map((m) => m[1]!);
    assert.ok(paths.length > 0);
    for (const path of paths) assert.ok(existsSync(join(root, path)), path);
    for (const name of [
      'builtInSignatureMethods',
      'SignatureMethodRegistry',
      'constantTimeEqual',
      'sharedSecretKey',
      'parsePublicKey',
    ]) {
      assert.match(section, new RegExp(`\\b${name}\\b`), `the section names ${name}`);
      assert.ok(name in protocol, `latchkey/protocol exports ${name}`);
    }
  });

  it('holds: no module outside the descriptors tells a method by its name prefix', () => {
    const descriptors = join(root, 'src/protocol/signature-methods.ts');
    const byName = /startsWith\(\s*['"`](RSA|HMAC|PLAINTEXT)|keyKind\s*===?\s*['"]rsa['"]/;
    const offenders = sourceFiles(join(root, 'src'))
      .filter((file) => file !== descriptors && byName.test(readFileSync(file, 'utf8')))
      .map((file) => relative(root, file));
    assert.deepEqual(offenders, []);
  });

  it('holds: every built-in method has vectors made independently of Latchkey', () => {
    const signed = new Set(Object.keys(vectors.signatureMethods.signatures));
    for (const method of builtInSignatureMethods) {
      const covered =
        method.name === 'PLAINTEXT'
          ? vectors.signatureMethods.plaintext.length > 0
          : signed.has(method.name);
      assert.ok(covered, `${method.name} has vectors in test/vectors/rfc5849.json`);
    }
  });
});
