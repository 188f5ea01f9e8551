import { auditTierSchema } from '@meridian/contracts';
import { z } from 'zod';

/** Inputs of the platform's routes (the domain is normalised by the flows, with a clear 400). */
const domain = z.string().min(1).max(300);

export const domainBodySchema = z.object({ domain }).strict();
export const domainQuerySchema = z.object({ domain });
export const runBodySchema = z
  .object({ domain, tier: auditTierSchema, payment: z.enum(['credit', 'deposit']).optional() })
  .strict();
export const idempotencyKeySchema = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[\x21-\x7e]+$/, 'printable ASCII');
export const runIdSchema = z.string().regex(/^run-[0-9a-f-]{36}$/, 'a run id (run-<uuid>)');
export const authorizeBodySchema = z
  .object({
    domain,
    attestation: z
      .object({ owner: z.boolean(), name: z.string().max(200), statement: z.string().max(2000).optional() })
      .strict()
      .optional(),
    days: z.number().int().min(1).max(365).optional(),
    scope: z.array(z.string().min(1).max(500)).max(50).optional(),
  })
  .strict();
export const credentialBodySchema = z
  .object({
    domain,
    kind: z.literal('form').default('form'),
    label: z.string().max(100).optional(),
    username: z.string().min(1).max(500),
    login_url: z
      .url({ protocol: /^https?$/ })
      .max(2000)
      .optional(),
    secret: z.string().min(1).max(4096),
  })
  .strict();
export const credentialIdSchema = z.object({ id: z.uuid() });
export const rescanBodySchema = z
  .object({ domain, enabled: z.boolean().optional(), tier: auditTierSchema.optional() })
  .strict();
