import { baseConfigSchema, loadConfig } from '@meridian/runtime';
import { z } from 'zod';
import { parseHours } from './domain/availability.js';

export const configSchema = baseConfigSchema
  .extend({
    /** Weekly consulting hours in UTC (e.g. "mon-fri 09:00-17:00; sat 10:00-13:00"). */
    CONSULTING_HOURS: z
      .string()
      .default('mon-fri 09:00-17:00')
      .transform((text, ctx) => {
        const hours = parseHours(text);
        if (hours.ok) return hours.value;
        ctx.addIssue({ code: 'custom', message: hours.detail });
        return z.NEVER;
      }),
    /** Length of one consulting slot. */
    CONSULTING_SLOT_MINUTES: z.coerce.number().int().min(15).max(480).default(60),
    /** A booking starts at least this many hours from now. */
    CONSULTING_NOTICE_HOURS: z.coerce.number().min(0).max(720).default(24),
    /** A booking starts at most this many days from now. */
    CONSULTING_HORIZON_DAYS: z.coerce.number().int().min(1).max(365).default(60),
    /** How long a booking to be paid on chain holds its slot. */
    BOOKING_HOLD_MINUTES: z.coerce.number().int().min(5).max(1440).default(15),
    /** Bookings to be paid on chain one account may hold unpaid at once. */
    BOOKING_UNPAID_HOLDS: z.coerce.number().int().min(1).max(50).default(2),
    /** The fraction of a day's slots unpaid bookings may hold together. */
    BOOKING_UNPAID_DAY_SHARE: z.coerce.number().min(0).max(1).default(0.5),
    /** Open service requests naming a domain one account may have at once. */
    REQUESTS_OPEN_PER_ACCOUNT: z.coerce.number().int().min(1).max(1000).default(10),
    /** An open request asked no more for this many days stops counting against the cap. */
    REQUESTS_OPEN_DAYS: z.coerce.number().int().min(1).max(365).default(30),
  })
  .transform((c) => ({
    ...c,
    bookingRules: {
      noticeMs: c.CONSULTING_NOTICE_HOURS * 3_600_000,
      horizonMs: c.CONSULTING_HORIZON_DAYS * 86_400_000,
    },
    holdRules: { perAccount: c.BOOKING_UNPAID_HOLDS, dayShare: c.BOOKING_UNPAID_DAY_SHARE },
    openRequestRules: { perAccount: c.REQUESTS_OPEN_PER_ACCOUNT, liveMs: c.REQUESTS_OPEN_DAYS * 86_400_000 },
  }));

export type Config = z.infer<typeof configSchema>;

export function parseConfig(env: Record<string, string | undefined>): Config {
  return loadConfig(configSchema, env, { PORT: '8086' });
}
