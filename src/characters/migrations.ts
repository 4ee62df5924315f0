import { Migrator, sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';

// In-code migrations, applied in name order by Kysely's Migrator on PostgreSQL and PGlite alike.
// Never edit one that has shipped: add the next.
const migrations: Record<string, Migration> = {
  '0001_create_characters': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('characters')
        .addColumn('id', 'text', (column) => column.primaryKey())
        .addColumn('name', 'text', (column) => column.notNull())
        .addColumn('clique_type', 'text', (column) =>
          column.notNull().check(sql`clique_type in ('KOOKS', 'POGUES')`),
        )
        .addColumn('is_hero', 'boolean', (column) => column.notNull().defaultTo(false))
        // Counts writes; lets tests prove that concurrent updates are all applied.
        .addColumn('revision', 'integer', (column) => column.notNull().defaultTo(1))
        .addColumn('created_at', 'timestamptz', (column) => column.notNull().defaultTo(sql`now()`))
        .addColumn('updated_at', 'timestamptz', (column) => column.notNull().defaultTo(sql`now()`))
        .execute();
      await db.schema
        .createIndex('characters_by_clique')
        .on('characters')
        .columns(['clique_type', 'name', 'id'])
        .execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('characters').execute();
    },
  },
};

const provider: MigrationProvider = { getMigrations: () => Promise.resolve(migrations) };

/** Brings the database to the latest migration; `schema` keeps the migration table beside the data. */
export async function migrateToLatest(db: Kysely<unknown>, schema?: string): Promise<void> {
  const migrator = new Migrator({ db, provider, ...(schema ? { migrationTableSchema: schema } : {}) });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((result) => result.status === 'Error');
  if (error !== undefined || failed) {
    const cause = error instanceof Error ? error : new Error(String(error));
    throw new Error(`characters migration ${failed?.migrationName ?? ''} failed: ${cause.message}`, {
      cause,
    });
  }
}
