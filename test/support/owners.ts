/** Owner records for tests that write to a store directly (the provider makes them otherwise). */
import type { NewOwner } from '../../src/store/index.ts';

/** A local owner as `provider.owners.create` stores one: its subject is its id, its name its username. */
export function localOwnerRecord(fields: {
  readonly id: string;
  readonly username: string;
  readonly passwordHash: string;
}): NewOwner {
  return {
    ...fields,
    source: 'local',
    subject: fields.id,
    issuer: null,
    name: fields.username,
  };
}
