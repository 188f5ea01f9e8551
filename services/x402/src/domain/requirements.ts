import {
  X402_VERSION,
  ok,
  paymentRequirementsSchema,
  refuse,
  type PaymentRequirements,
  type Refusal,
  type Result,
  type X402Reason,
} from '@meridian/contracts';
import { z } from 'zod';

/** A payment as the client sent it (x402 v2 PaymentPayload), parsed without trusting a field. */
export const paymentPayloadSchema = z.object({
  x402Version: z.number().int(),
  resource: z
    .object({ url: z.string().max(4096) })
    .loose()
    .optional(),
  accepted: paymentRequirementsSchema.loose(),
  payload: z.object({ transaction: z.string().min(1).max(16_384) }).loose(),
  extensions: z.record(z.string(), z.unknown()).optional(),
});
export type PaymentPayload = z.infer<typeof paymentPayloadSchema>;

export type PaymentRefusal = Refusal<X402Reason>;

/**
 * The header's base64 (standard or url-safe) of the payload JSON. Anything else, a JSON that is
 * not a payment, or a version other than 2, is refused before any other work.
 */
export function decodePayment(header: string): Result<PaymentPayload, X402Reason> {
  const text = header.trim();
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(text))
    return refuse('payment_undecodable', 'The payment header is not base64.');
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(text, 'base64').toString('utf8'));
  } catch {
    return refuse('payment_undecodable', 'The payment header is not base64 of a JSON payment payload.');
  }
  const parsed = paymentPayloadSchema.safeParse(json);
  if (!parsed.success)
    return refuse(
      'payment_undecodable',
      `The payment payload is malformed: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'payload'} ${i.message}`).join('; ')}.`,
    );
  if (parsed.data.x402Version !== X402_VERSION)
    return refuse(
      'unsupported_version',
      `x402Version ${parsed.data.x402Version} is not accepted; use ${X402_VERSION}.`,
    );
  return ok(parsed.data);
}

/**
 * The requirements the client says it accepted must be ours, field by field; the first that
 * differs names the refusal. The facilitator then checks the transaction against ours.
 */
export function matchRequirements(
  accepted: PaymentPayload['accepted'],
  ours: PaymentRequirements,
): PaymentRefusal | undefined {
  const differs = (field: string, theirs: unknown, want: unknown, reason: X402Reason) =>
    theirs === want
      ? undefined
      : refuse(reason, `The payment's ${field} is ${String(theirs)}; this call needs ${String(want)}.`);
  return (
    differs('scheme', accepted.scheme, ours.scheme, 'requirements_mismatch') ??
    differs('network', accepted.network, ours.network, 'network_mismatch') ??
    differs('amount', accepted.amount, ours.amount, 'amount_mismatch') ??
    differs('asset', accepted.asset, ours.asset, 'asset_mismatch') ??
    differs('payTo', accepted.payTo, ours.payTo, 'recipient_mismatch') ??
    differs('extra.feePayer', accepted.extra.feePayer, ours.extra.feePayer, 'fee_payer_mismatch') ??
    differs('maxTimeoutSeconds', accepted.maxTimeoutSeconds, ours.maxTimeoutSeconds, 'requirements_mismatch')
  );
}

/**
 * A resource URL reduced to what names the resource: the path, dot segments resolved, and the
 * query with its parameters in name order. Scheme and host are left out: one gateway answers under
 * several names (a public base, a replica's address), and a payment is for the resource, not the door.
 */
function resourceKey(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  const params = [...parsed.searchParams].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const query = new URLSearchParams(params).toString();
  return `${parsed.pathname}${query ? `?${query}` : ''}`;
}

/**
 * A payment buys the resource it was signed for (x402 v2: the payload carries the challenge's
 * `resource`): the payload's URL and the URL bought must name the same path and query.
 */
export function matchResource(
  signedFor: PaymentPayload['resource'],
  bought: string,
): PaymentRefusal | undefined {
  const want = resourceKey(bought);
  if (!signedFor)
    return refuse('resource_mismatch', `The payment names no resource; this call buys ${want ?? bought}.`);
  const theirs = resourceKey(signedFor.url);
  if (theirs !== undefined && theirs === want) return undefined;
  return refuse(
    'resource_mismatch',
    `The payment is for ${theirs ?? 'an unreadable URL'}; this call buys ${want ?? bought}.`,
  );
}
