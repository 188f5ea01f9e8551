/** The USDC mint of Solana devnet (6 decimals): the local chain's default mint. */
export const DEVNET_USDC_MINT = '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU';
/** Genesis hash of Solana devnet: the local chain answers it, so its CAIP-2 id is devnet's. */
export const DEVNET_GENESIS_HASH = 'EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG';

/** The CAIP-2 id of a Solana chain: `solana:` and the first 32 characters of its genesis hash. */
export const networkOf = (genesisHash: string) => `solana:${genesisHash.slice(0, 32)}`;

/** The SPL Memo program (v2/v3 id) and the first memo program, as wallets still use both. */
export const MEMO_PROGRAM_ADDRESS = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr';
export const MEMO_V1_PROGRAM_ADDRESS = 'Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo';
