import { outboxAnnouncer } from '@meridian/bus';
import {
  EVENTS,
  accountCreatedSchema,
  accountPlanChangedSchema,
  keyCreatedSchema,
  keyRevokedSchema,
  sessionRevokedSchema,
} from '@meridian/contracts';
import { SERVICE } from '../deps.js';

/** Writes an event into the outbox of the transaction that makes the change; the payload is checked first. */
export const announce = outboxAnnouncer(SERVICE, {
  [EVENTS.identityAccountCreated]: accountCreatedSchema,
  [EVENTS.identityAccountPlanChanged]: accountPlanChangedSchema,
  [EVENTS.identityKeyCreated]: keyCreatedSchema,
  [EVENTS.identityKeyRevoked]: keyRevokedSchema,
  [EVENTS.identitySessionRevoked]: sessionRevokedSchema,
});
