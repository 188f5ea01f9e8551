// The Solana node of the local chain: LiteSVM, its ledger and its JSON-RPC methods, in the
// process that imports it (never one that holds a database client: see chain.ts).
export { LocalChain, type Landed, type Transfer } from './chain.js';
export { listenJsonRpc, type Dispatch } from './json-rpc.js';
export { addressSchema } from './params.js';
export { decodeTransaction, solanaDispatch } from './rpc-methods.js';
export { MEMO_PROGRAM_ID, MEMO_V1_PROGRAM_ID, RpcError, invalidParams } from './transaction-meta.js';
export type { LandedTransaction, LocalChainOptions, TokenBalanceJson, TxErrorJson } from './types.js';
