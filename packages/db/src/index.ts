export * from './database.js';
export * from './migrate.js';
export * from './pglite.js';
export * from './command.js';
export * from './listen.js';
export { serveCommands, type CommandIo, type CommandMain } from './command-socket.js';
export * from './operator-actions.js';
export * from './operator-log.js';
