/**
 * What each admin role may do (docs/admin.md "Roles"): the one table the admin API asks
 * before every operation. `auditor` reads; `support` reads and stops access (revokes tokens
 * and grants, disables a client), never grants it back or changes what a client is;
 * `operator` does everything.
 */
import type { AdminRole } from '../../store/types.ts';

export type { AdminRole } from '../../store/types.ts';

/** Every operation of the admin API, by what it touches. */
export const adminActions = [
  'read',
  'tokens.revoke',
  'clients.disable',
  'clients.enable',
  'clients.write',
  'clients.rotate',
  'clients.delete',
  'owners.delete',
  'owners.write',
  'tokens.issue',
  'keys.reseal',
  'keys.rotate',
  'webhooks.write',
] as const;

export type AdminAction = (typeof adminActions)[number];

export const adminRoles: readonly AdminRole[] = ['operator', 'auditor', 'support'];

const allowed: Readonly<Record<AdminRole, ReadonlySet<AdminAction>>> = {
  auditor: new Set(['read']),
  // Stopping a leak is support's work; turning access back on, or changing a client, is not.
  support: new Set(['read', 'tokens.revoke', 'clients.disable']),
  operator: new Set(adminActions),
};

export function roleMay(role: AdminRole, action: AdminAction): boolean {
  return allowed[role].has(action);
}

/** The actions a role may take, in the order of `adminActions` (docs, `admin-tokens list`). */
export function actionsOf(role: AdminRole): AdminAction[] {
  return adminActions.filter((action) => allowed[role].has(action));
}

export function isAdminRole(value: unknown): value is AdminRole {
  return typeof value === 'string' && (adminRoles as readonly string[]).includes(value);
}
