import { USDC_MINTS } from '@meridian/contracts';
import type { Config } from '../config.js';

/** Where and in what a deposit is sent on this deployment; "" when no deposit wallet is set. */
export function depositTarget(config: Pick<Config, 'DEPOSIT_ADDRESS' | 'SOLANA_NETWORK'>) {
  return {
    deposit_address: config.DEPOSIT_ADDRESS ?? '',
    asset: USDC_MINTS[config.SOLANA_NETWORK]!,
    network: config.SOLANA_NETWORK,
  };
}
