// The admin API on the shared store: PostgreSQL (a schema of its own for the run).
import { after } from 'node:test';
import { createPostgresStore } from '../../src/store/index.ts';
import { dropSchema, postgresUrl, probePostgres, runName } from '../stores/support-services.ts';
import { requirement } from '../support/requirements.ts';
import { describeAdminOperatorRoutes } from './operator-suite.ts';
import { describeAdminApi } from './suite.ts';
import { describeAdminRotation } from './rotation-suite.ts';

const skip = requirement('PostgreSQL at 127.0.0.1:5432', await probePostgres());
const schema = runName('schema');
describeAdminApi(
  'PostgreSQL',
  () => createPostgresStore({ connectionString: postgresUrl, schema }),
  skip,
);
describeAdminOperatorRoutes(
  'PostgreSQL',
  () => createPostgresStore({ connectionString: postgresUrl, schema }),
  skip,
);
describeAdminRotation(
  'PostgreSQL',
  () => createPostgresStore({ connectionString: postgresUrl, schema }),
  skip,
);
after(async () => {
  if (!skip) await dropSchema(schema);
});
