import { randomUUID } from 'node:crypto';
import { createMetrics } from '@meridian/observability';
import { createNatsBus } from '../src/index.js';
import { busContractSuite } from '../src/contract-suite.js';
import { TEST_NATS_URL, deleteNatsNamespace } from '../src/testing.js';

const namespace = `t${randomUUID().slice(0, 8)}`;

busContractSuite('nats', async () => {
  const metrics = createMetrics('bus-test', { defaultMetrics: false });
  const bus = await createNatsBus({ url: TEST_NATS_URL, name: 'bus-test', namespace, metrics });
  return {
    bus,
    metrics,
    peer: () => createNatsBus({ url: TEST_NATS_URL, name: 'bus-test-peer', namespace }),
    cleanup: async () => {
      await bus.close();
      await deleteNatsNamespace(TEST_NATS_URL, namespace);
    },
  };
});
