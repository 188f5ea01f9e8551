// What `pnpm start` runs offline for money, light to load: the lazy gate of the all-in-one, the
// launcher of the chain's process, and the key pairs and chain file kept under DATA_DIR. The
// chain itself (LiteSVM, the Solana and x402 libraries) loads only in that process ("./node").
export {
  DEVNET_GENESIS_HASH,
  DEVNET_USDC_MINT,
  MEMO_PROGRAM_ADDRESS,
  MEMO_V1_PROGRAM_ADDRESS,
  networkOf,
} from './devnet.js';
export { startLocalChainProcess, type LocalChainProcess, type LocalChainProcessOptions } from './launch.js';
export { startLazyLocalChain, type LazyLocalChain, type LazyLocalChainOptions } from './lazy-chain.js';
export {
  localDepositWallet,
  payLocalDeposit,
  readLocalChain,
  writeLocalChain,
  type LocalChain,
  type PaidDeposit,
} from './local-deposit.js';
export type { FacilitatorMode } from './facilitator/routes.js';
