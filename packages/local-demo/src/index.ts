export { bindDnsServer, type BoundDns, type DnsHandler } from './dns-server.js';
export { DEMO_HOST, publishTxt } from './demo-zone.js';
export { startDemoResolver } from './demo-resolver.js';
export { startDemoSite, type DemoSite } from './demo-site.js';
