import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Client, escapeIdentifier, escapeLiteral } from 'pg';

/** Where the cluster's PostgreSQL is: the host, port and role of DATABASE_URL. */
export interface PostgresServer {
  host: string;
  port: number;
  user: string;
  password: string;
}

/** The cluster's two databases: workflow state and visibility (`temporal`, `temporal_visibility`). */
export interface TemporalDatabases {
  temporal: string;
  visibility: string;
}

/** `temporal` and `temporal_visibility`; another prefix keeps a test cluster apart from `npm run cluster`'s. */
export function temporalDatabases(prefix = 'temporal'): TemporalDatabases {
  return { temporal: prefix, visibility: `${prefix}_visibility` };
}

/** The schemas embedded in the schema tool, one per database. */
const schemaNames: Record<keyof TemporalDatabases, string> = {
  temporal: 'postgresql/v12/temporal',
  visibility: 'postgresql/v12/visibility',
};

export function postgresServer(databaseUrl: string): PostgresServer {
  const url = new URL(databaseUrl);
  return {
    host: url.hostname,
    port: Number(url.port || 5432),
    user: decodeURIComponent(url.username || 'postgres'),
    password: decodeURIComponent(url.password),
  };
}

async function query<T>(
  server: PostgresServer,
  database: string,
  sql: string,
  values: unknown[] = [],
): Promise<T[]> {
  const client = new Client({ ...server, database });
  await client.connect();
  try {
    return (await client.query(sql, values)).rows as T[];
  } finally {
    await client.end();
  }
}

function runSqlTool(sqlTool: string, server: PostgresServer, args: string[]): Promise<void> {
  const connection = ['--plugin', 'postgres12', '--endpoint', server.host, '--port', String(server.port)];
  connection.push('--user', server.user);
  if (server.password) connection.push('--password', server.password);
  return new Promise((resolve, reject) => {
    const child = spawn(sqlTool, [...connection, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const collect = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000));
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`schema tool ${args.join(' ')} exited with ${code}:\n${output}`)),
    );
  });
}

/**
 * Creates the `temporal` and `temporal_visibility` databases when missing, sets up the schema tool's
 * versioning in a new one, and always updates both schemas to the latest version the tool embeds. Running
 * it again changes nothing, so a restart keeps every workflow.
 */
export async function prepareDatabases(
  sqlTool: string,
  server: PostgresServer,
  databases: TemporalDatabases,
  log: (line: string) => void,
): Promise<void> {
  for (const kind of ['temporal', 'visibility'] as const) {
    const database = databases[kind];
    const existing = await query<{ datname: string }>(
      server,
      'postgres',
      'SELECT datname FROM pg_database WHERE datname = $1',
      [database],
    );
    const target = ['--database', database];
    if (existing.length === 0) {
      log(`Creating database ${database} on ${server.host}:${server.port}`);
      await runSqlTool(sqlTool, server, [...target, 'create-database']);
    }
    const versioned = await query(
      server,
      database,
      "SELECT 1 FROM information_schema.tables WHERE table_name = 'schema_version'",
    );
    if (versioned.length === 0) {
      await runSqlTool(sqlTool, server, [...target, 'setup-schema', '--version', '0.0']);
    }
    await runSqlTool(sqlTool, server, [...target, 'update-schema', '--schema-name', schemaNames[kind]]);
    const [version] = await query<{ curr_version: string }>(
      server,
      database,
      'SELECT curr_version FROM schema_version',
    );
    log(`Database ${database}: schema ${version?.curr_version ?? '?'}`);
  }
}

/**
 * Drops both databases, closing any connection to them: the next prepareDatabases creates them empty. For a
 * cluster that must not see an earlier run's workflows: its open ones would wake on this run's workers.
 */
export async function dropDatabases(server: PostgresServer, databases: TemporalDatabases): Promise<void> {
  for (const database of [databases.temporal, databases.visibility]) {
    await query(server, 'postgres', `DROP DATABASE IF EXISTS ${escapeIdentifier(database)} WITH (FORCE)`);
  }
}

/**
 * Forgets the service hosts an earlier run of the stack registered. The stack starts every service of the
 * cluster itself, so no row names a live host; a recent row of a stopped or killed process would make ringpop
 * try to join it until its join time-out, and the service exits ("failed to start ringpop").
 */
export async function forgetClusterMembers(
  server: PostgresServer,
  databases: TemporalDatabases,
): Promise<void> {
  await query(server, databases.temporal, 'DELETE FROM cluster_membership');
}

/**
 * The characters service's own role and database, `<prefix>_characters` (as docker-compose.yml's
 * characters-database step): created when missing, not a superuser, a fresh password each start. Answers the
 * DATABASE_URL the characters service connects with.
 */
export async function prepareCharactersDatabase(
  server: PostgresServer,
  prefix = 'temporal',
): Promise<string> {
  const name = `${prefix}_characters`;
  const password = randomBytes(24).toString('hex');
  const role = escapeIdentifier(name);
  const roles = await query(server, 'postgres', 'SELECT 1 FROM pg_roles WHERE rolname = $1', [name]);
  if (roles.length === 0) await query(server, 'postgres', `CREATE ROLE ${role} LOGIN`);
  await query(
    server,
    'postgres',
    `ALTER ROLE ${role} WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD ${escapeLiteral(password)}`,
  );
  const databases = await query(server, 'postgres', 'SELECT 1 FROM pg_database WHERE datname = $1', [name]);
  if (databases.length === 0) await query(server, 'postgres', `CREATE DATABASE ${role} OWNER ${role}`);
  await query(server, 'postgres', `REVOKE ALL ON DATABASE ${role} FROM PUBLIC`);
  return `postgres://${name}:${password}@${server.host}:${server.port}/${name}`;
}
