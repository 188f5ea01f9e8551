import { createMetrics } from '@meridian/observability';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, PGliteDialect } from 'kysely';
import { createMemoryBus, openBusJournal, openMemoryBus } from '../src/index.js';
import { busContractSuite } from '../src/contract-suite.js';

busContractSuite('memory', async () => {
  const metrics = createMetrics('bus-test', { defaultMetrics: false });
  const bus = createMemoryBus({ name: 'bus-test', metrics });
  return { bus, metrics, cleanup: () => bus.close() };
});

busContractSuite('memory, journaled on PGlite', async () => {
  const pglite = await PGlite.create();
  const db = new Kysely<never>({ dialect: new PGliteDialect({ pglite: pglite as never }) });
  const metrics = createMetrics('bus-test', { defaultMetrics: false });
  const journal = await openBusJournal(db, 'bus');
  const bus = await openMemoryBus({ name: 'bus-test', metrics, journal });
  return {
    bus,
    metrics,
    cleanup: async () => {
      await bus.close();
      await db.destroy();
    },
  };
});
