import { ok, refuse, USDC_MINTS, type Result } from '@meridian/contracts';
import type { Config } from '../config.js';

export interface DepositTarget {
  deposit_address: string;
  asset: string;
  network: string;
}

/**
 * Where and in what a deposit is sent on this deployment: the one source of the address, network
 * and asset that credits, quotes and the retired rail show. Without a deposit address, paying by
 * deposit is refused rather than shown with an address no one can pay to.
 */
export function depositTarget(
  config: Pick<Config, 'DEPOSIT_ADDRESS' | 'SOLANA_NETWORK'>,
  address: string | undefined = config.DEPOSIT_ADDRESS,
): Result<DepositTarget, 'deposits_off'> {
  if (!address)
    return refuse(
      'deposits_off',
      'Paying by deposit is off on this deployment: no deposit address is set (DEPOSIT_ADDRESS).',
    );
  return ok({
    deposit_address: address,
    asset: USDC_MINTS[config.SOLANA_NETWORK]!,
    network: config.SOLANA_NETWORK,
  });
}
