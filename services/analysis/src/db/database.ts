import type { Generated } from 'kysely';
import type { OutboxTables } from '@meridian/bus';
import type { Report } from '@meridian/contracts';
import type { Audience } from '../domain/share.js';

/** Tables of the `analysis` schema. */
export interface Database extends OutboxTables {
  runs: {
    id: string;
    account_id: string;
    report: Report | null;
  };
  share_links: {
    id: Generated<number>;
    token_hash: string;
    run_id: string;
    account_id: string;
    audience: Audience;
    expires_at: Date | null;
    revoked_at: Date | null;
    created_at: Date;
  };
}
