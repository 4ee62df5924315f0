import type { PGlite } from '@electric-sql/pglite';
import {
  CompiledQuery,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type QueryResult,
} from 'kysely';

/**
 * Kysely dialect for the embedded PGlite database. kysely-pglite is ESM-only (jest and this CommonJS
 * build cannot load it) and hands every caller the same connection at once, so two transactions would
 * interleave on PGlite's single session. Here a connection is lent to one caller at a time.
 */
export class PGliteDialect implements Dialect {
  constructor(private readonly database: PGlite) {}

  createAdapter() {
    return new PostgresAdapter();
  }
  createDriver(): Driver {
    return new PGliteDriver(this.database);
  }
  createIntrospector(db: Parameters<Dialect['createIntrospector']>[0]) {
    return new PostgresIntrospector(db);
  }
  createQueryCompiler() {
    return new PostgresQueryCompiler();
  }
}

class PGliteDriver implements Driver {
  private queue: Promise<void> = Promise.resolve();
  private release: (() => void) | undefined;

  constructor(private readonly database: PGlite) {}

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    const previous = this.queue;
    let release!: () => void;
    this.queue = new Promise<void>((resolve) => (release = resolve));
    await previous;
    this.release = release;
    return new PGliteConnection(this.database);
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin'));
  }
  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }
  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async releaseConnection(): Promise<void> {
    const release = this.release;
    this.release = undefined;
    release?.();
  }

  async destroy(): Promise<void> {
    await this.queue;
    await this.database.close();
  }
}

class PGliteConnection implements DatabaseConnection {
  constructor(private readonly database: PGlite) {}

  async executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    const result = await this.database.query<R>(compiledQuery.sql, [...compiledQuery.parameters]);
    return result.affectedRows === undefined
      ? { rows: result.rows }
      : { rows: result.rows, numAffectedRows: BigInt(result.affectedRows) };
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('PGlite does not stream query results');
  }
}
