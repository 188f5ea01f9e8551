export * from './types.js';
export { createNatsBus, type NatsBusOptions } from './nats.js';
export { createMemoryBus, openMemoryBus, type MemoryBusOptions } from './memory.js';
export { openBusJournal, type BusJournal, type JournalMessage, type JournalSettlement } from './journal.js';
export { newEvent } from './event.js';
export { serviceUnavailable, internalError } from './problems.js';
export {
  applyOnce,
  createOutboxTables,
  outboxAnnouncer,
  startOutboxRelay,
  writeOutbox,
  type OutboxRelay,
  type OutboxRelayOptions,
  type OutboxTables,
} from './outbox.js';
