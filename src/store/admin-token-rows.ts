/** Admin token rows to records, once for every adapter (src/store/types.ts AdminTokenStore). */
import type { ColumnReader } from './rows.ts';
import type { AdminRole, AdminToken } from './types.ts';

const roles: readonly string[] = ['operator', 'auditor', 'support'];

export function toAdminToken<Row>(read: ColumnReader<Row>, row: Row): AdminToken {
  const role = read.text(row, 'role');
  if (!roles.includes(role)) throw new TypeError('Unknown admin role.');
  return {
    id: read.text(row, 'id'),
    name: read.text(row, 'name'),
    role: role as AdminRole,
    digest: read.text(row, 'digest'),
    createdAt: read.int(row, 'created_at'),
    expiresAt: read.intOrNull(row, 'expires_at'),
  };
}
