// Real protocol servers on loopback for the peers a test cannot reach (docs/DESIGN.md, "Running it":
// offline), and the services themselves as their own processes, for tests that see them only over the wire.
export { linkIn, startSmtp, type ReceivedMail } from './smtp.js';
export { OIDC_CLIENT, startOidcPeer, type OidcPeer, type Person } from './oidc-peer.js';
export { CHROMIUM_PATH, hasChromium, launchChromium } from './chromium.js';
export { startUpstreamPeer, type UpstreamAnswer, type UpstreamPeer } from './upstream-peer.js';
export { startDnsPeer, type DnsEntry, type DnsPeer, type DnsZone } from './dns-peer.js';
export { freePort, runScript, startServiceProcess, type ServiceProcess } from './service-process.js';
export {
  DEVNET_GENESIS_HASH,
  DEVNET_USDC_MINT,
  MEMO_PROGRAM_ID,
  MEMO_V1_PROGRAM_ID,
  startSolanaPeer,
  type LandedTransaction,
  type SolanaPeer,
  type SolanaPeerOptions,
  type TransferOptions,
} from './solana-peer.js';
export {
  startX402Facilitator,
  type FacilitatorMode,
  type LocalWallet,
  type X402Facilitator,
} from './x402-facilitator.js';
export { startNatsServer, type NatsServer } from './nats-server.js';
export { startPostgresServer, type PostgresServer } from './postgres-server.js';
