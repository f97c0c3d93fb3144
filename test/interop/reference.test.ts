// Every driver against the reference server (reference-server.ts), which verifies with
// src/protocol alone: a pass means the library and our protocol core agree on the base
// string and the signature for every awkward value (RFC 5849 §3.4, §3.6).
import { drivers } from './drivers.ts';
import { describeInterop } from './interop-suite.ts';
import type { InteropTarget } from './interop-suite.ts';
import { startReferenceServer } from './reference-server.ts';

const target: InteropTarget = {
  name: 'the protocol core (reference server)',
  async start({ rsaPublicKey }) {
    const server = await startReferenceServer({ rsaPublicKey });
    return {
      ...server,
      approve: (token: string) => server.approve(token),
      diagnostics: () =>
        server.rejectedBaseStrings.map((base) => `rejected base string: ${base}`).join('\n'),
      close: () => server.close(),
    };
  },
  scope: { request: 'read', expected: 'read' },
  defaultScope: null,
};

for (const driver of drivers) describeInterop(driver, target);
