// Real protocol servers on loopback for the peers a test cannot reach (see DESIGN.md, "Offline").
export { startSmtp, type ReceivedMail } from './smtp.js';
export { OIDC_CLIENT, startOidcPeer, type OidcPeer, type Person } from './oidc-peer.js';
