import { createMetrics } from '@meridian/observability';
import { createMemoryBus } from '../src/index.js';
import { busContractSuite } from '../src/contract-suite.js';

busContractSuite('memory', async () => {
  const metrics = createMetrics('bus-test', { defaultMetrics: false });
  const bus = createMemoryBus({ name: 'bus-test', metrics });
  return { bus, metrics, cleanup: () => bus.close() };
});
