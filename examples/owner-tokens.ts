// A team's own API lets the people it serves see the tokens their apps hold, by device, and
// end one, on the same store as the Latchkey server (run `npm start` beside it).
// Run: npx node --conditions=source examples/owner-tokens.ts
import Fastify from 'fastify';
import { createProvider, latchkeyFastify, NotFoundError, openStore } from 'latchkey';

const store = await openStore(process.env.LATCHKEY_DATABASE ?? './data/latchkey.db');
const provider = createProvider({ store });
const app = Fastify({ logger: true });
await app.register(latchkeyFastify, { provider });

// The live tokens of the person the caller acts for, by device; never a secret.
app.get('/tokens', async (request, reply) => {
  const owner = request.oauth?.owner;
  if (!owner) return reply.code(403).send({ error: 'no owner' });
  const tokens = await provider.tokens.ofOwner(owner.id);
  return {
    owner: owner.subject,
    tokens: tokens.map((token) => ({
      id: token.id,
      client: token.clientKey,
      device: token.device, // "curl/8.5", "Firefox on Linux"; null until first used
      issuedAt: new Date(token.issuedAt).toISOString(),
      lastUsedAt: token.lastUsedAt === null ? null : new Date(token.lastUsedAt).toISOString(),
    })),
  };
});

// Ends the token this request is signed with, by its public value ("sign out here").
app.post('/tokens/current/revoke', async (request, reply) => {
  const caller = request.oauth;
  if (!caller?.owner || caller.token === null) return reply.code(403).send({ error: 'no token' });
  return { revoked: await provider.tokens.revoke(caller.token, caller.owner.id) };
});

// Ends one token by its id from GET /tokens; the person's other tokens keep working. An id
// that is not one of theirs is NotFoundError, exactly as one that does not exist.
app.post<{ Params: { id: string } }>('/tokens/:id/revoke', async (request, reply) => {
  const owner = request.oauth?.owner;
  if (!owner) return reply.code(403).send({ error: 'no owner' });
  try {
    const revoked = await provider.tokens.revokeOwned(owner.id, request.params.id);
    return { revoked: revoked.id, device: revoked.device };
  } catch (error) {
    if (error instanceof NotFoundError) return reply.code(404).send({ error: 'no such token' });
    throw error;
  }
});

app.addHook('onClose', () => store.close());
await app.listen({ host: '127.0.0.1', port: 3000 });
