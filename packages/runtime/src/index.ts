export * from './compaction.js';
export * from './config.js';
export * from './main.js';
export * from './periodic.js';
export * from './probes.js';
export * from './service.js';
export { open, parseKey, seal } from './secret-box.js';
export { resultHandler } from './rpc.js';
