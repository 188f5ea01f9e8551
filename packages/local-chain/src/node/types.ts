export type TxErrorJson = string | Record<string, unknown>;

export interface TokenBalanceJson {
  accountIndex: number;
  mint: string;
  owner: string;
  programId: string;
  uiTokenAmount: { amount: string; decimals: number; uiAmount: number | null; uiAmountString: string };
}

/** One transaction that landed, as the node keeps it for getTransaction and getSignaturesForAddress. */
export interface LandedTransaction {
  signature: string;
  slot: number;
  blockTime: number;
  err: TxErrorJson | null;
  /** The signed transaction as sent, base64. */
  wire: string;
  accountKeys: string[];
  fee: number;
  preBalances: number[];
  postBalances: number[];
  preTokenBalances: TokenBalanceJson[];
  postTokenBalances: TokenBalanceJson[];
  logMessages: string[];
  innerInstructions: Array<{
    index: number;
    instructions: Array<{ programIdIndex: number; accounts: number[]; data: string; stackHeight: number }>;
  }>;
  computeUnitsConsumed: number;
  memos: string[];
}

export interface LocalChainOptions {
  /** Address of the USDC-like mint; default the devnet USDC mint. */
  mint?: string;
  decimals?: number;
  genesisHash?: string;
}
