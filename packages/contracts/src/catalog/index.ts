export * from './types.js';
export { CATALOG } from './products.js';
export * from './lookup.js';
export * from './paths.js';
export * from './live-markets.js';
export { LIVE_DERIVATIVES } from './categories/crypto.js';
export * from './modes.js';
export * from './replay-sources.js';
