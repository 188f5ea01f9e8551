export * from './logger.js';
export * from './metrics.js';
export * from './trace.js';
