import { sql, type Kysely } from 'kysely';
import { Migrator, type Migration, type MigrationResultSet } from 'kysely/migration';

/**
 * Migrations of one service, keyed by a timestamped name (sorted lexically). They are frozen:
 * written against Kysely<any> and never importing application code.
 */
export type Migrations = Record<string, Migration>;

/** Creates the service's schema and brings it to the latest migration; throws on any failure. */
export async function migrateToLatest(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations work on any service's tables
  db: Kysely<any>,
  schema: string,
  migrations: Migrations,
): Promise<MigrationResultSet> {
  await sql`create schema if not exists ${sql.id(schema)}`.execute(db);
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    migrationTableSchema: schema,
    migrationTableName: 'kysely_migration',
    migrationLockTableName: 'kysely_migration_lock',
  });
  const result = await migrator.migrateToLatest();
  if (result.error) throw result.error instanceof Error ? result.error : new Error(String(result.error));
  return result;
}
