import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { postgresServer, prepareCharactersDatabase } from '../../src/dev/cluster/databases';
import { testDatabaseUrl } from '../helpers/characters-fixtures';

// `npm run cluster` gives the characters service its own role and database, as docker-compose.yml does.
const server = postgresServer(testDatabaseUrl);
const prefix = `probe_${randomUUID().slice(0, 8)}`;
const name = `${prefix}_characters`;

async function asSuperuser(sql: string) {
  const client = new Client({ ...server, database: 'postgres' });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

afterAll(async () => {
  await asSuperuser(`DROP DATABASE IF EXISTS ${name}`);
  await asSuperuser(`DROP ROLE IF EXISTS ${name}`);
});

it('creates the characters role and database once, not a superuser, and answers its DATABASE_URL', async () => {
  const first = await prepareCharactersDatabase(server, prefix);
  const again = await prepareCharactersDatabase(server, prefix);
  expect(new URL(again)).toMatchObject({ username: name, pathname: `/${name}` });
  expect(again).not.toBe(first);

  const client = new Client({ connectionString: again });
  await client.connect();
  try {
    const { rows } = await client.query<{ user: string; database: string; superuser: boolean }>(
      'SELECT current_user AS user, current_database() AS database, rolsuper AS superuser FROM pg_roles WHERE rolname = current_user',
    );
    expect(rows).toEqual([{ user: name, database: name, superuser: false }]);
    await expect(client.query('CREATE DATABASE not_allowed')).rejects.toThrow(/permission denied/);
  } finally {
    await client.end();
  }
});
