import { describe, expect, it } from '@jest/globals';
import { SOLANA_DEVNET, SOLANA_MAINNET } from '@meridian/contracts';
import { parseConfig } from '../../src/config.js';

const base = { INTERNAL_AUTH_SECRET: 'x'.repeat(32) };

describe("the challenge's network", () => {
  it('is SOLANA_NETWORK, the one billing names in prices, credits and quotes, unless X402_NETWORK is set', () => {
    expect(parseConfig(base).X402_NETWORK).toBe(SOLANA_MAINNET);
    expect(parseConfig({ ...base, SOLANA_NETWORK: SOLANA_DEVNET }).X402_NETWORK).toBe(SOLANA_DEVNET);
    expect(
      parseConfig({ ...base, SOLANA_NETWORK: SOLANA_DEVNET, X402_NETWORK: SOLANA_MAINNET }).X402_NETWORK,
    ).toBe(SOLANA_MAINNET);
  });
});
