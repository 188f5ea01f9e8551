import { PublicKey } from '@solana/web3.js';
import { z } from 'zod';

/** A base58 address in a request body, parsed to its key. */
export const addressSchema = z.string().transform((value, ctx) => {
  try {
    return new PublicKey(value);
  } catch {
    ctx.addIssue({ code: 'custom', message: `invalid address ${value}` });
    return z.NEVER;
  }
});
