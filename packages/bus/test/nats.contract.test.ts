import { randomUUID } from 'node:crypto';
import { createMetrics } from '@meridian/observability';
import { createNatsBus } from '../src/index.js';
import { busContractSuite } from '../src/contract-suite.js';
import { deleteNatsNamespace } from '../src/testing.js';

const url = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const namespace = `t${randomUUID().slice(0, 8)}`;

busContractSuite('nats', async () => {
  const metrics = createMetrics('bus-test', { defaultMetrics: false });
  const bus = await createNatsBus({ url, name: 'bus-test', namespace, metrics });
  return {
    bus,
    metrics,
    peer: () => createNatsBus({ url, name: 'bus-test-peer', namespace }),
    cleanup: async () => {
      await bus.close();
      await deleteNatsNamespace(url, namespace);
    },
  };
});
