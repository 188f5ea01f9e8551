import { chmodSync, existsSync, rmSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { join, resolve } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { z } from 'zod';

/** Where a command reads its settings and writes its answer (tests pass their own). */
export interface CommandIo {
  env: NodeJS.ProcessEnv;
  stdout: (s: string) => void;
  stderr: (s: string) => void;
}

/** An operator's command line as a function: its arguments and where it writes; the exit code. */
export type CommandMain = (argv: string[], io: CommandIo) => Promise<number>;

/**
 * The socket, under DATA_DIR, through which the process holding the embedded database runs the
 * operators' commands: the embedded database takes one writer, so a command run while `pnpm start`
 * holds it is run by that process, on its open database, and answers through here.
 */
const socketOf = (dataDir: string) => join(resolve(dataDir), 'commands.sock');

/** Databases this process holds and lends to the commands it serves, by their directory. */
const held = new Map<string, PGlite>();

/** The embedded database under `dir` when this process holds it (a command served in-process). */
export const heldPGlite = (dir: string): PGlite | undefined => held.get(resolve(dir));

const requestSchema = z.object({
  command: z.string().max(100),
  argv: z.array(z.string().max(4096)).max(100),
});
const answerSchema = z.object({ code: z.number().int(), stdout: z.string(), stderr: z.string() });
type Answer = z.infer<typeof answerSchema>;

/** One JSON line from the socket, up to 1 MB. */
function readLine(socket: Socket): Promise<string> {
  return new Promise((done, fail) => {
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
      const end = text.indexOf('\n');
      if (end >= 0) done(text.slice(0, end));
      else if (text.length > 1 << 20) fail(new Error('line too long'));
    });
    socket.once('error', fail);
    socket.once('end', () => fail(new Error('closed before a line')));
  });
}

async function answer(
  commands: Record<string, () => Promise<CommandMain>>,
  env: NodeJS.ProcessEnv,
  line: string,
): Promise<Answer> {
  const parsed = requestSchema.safeParse(JSON.parse(line));
  if (!parsed.success) return { code: 2, stdout: '', stderr: 'commands: a malformed request\n' };
  const { command, argv } = parsed.data;
  const load = Object.hasOwn(commands, command) ? commands[command] : undefined;
  if (!load) return { code: 2, stdout: '', stderr: `commands: ${command} is not served here\n` };
  let stdout = '';
  let stderr = '';
  const io: CommandIo = { env, stdout: (s) => void (stdout += s), stderr: (s) => void (stderr += s) };
  try {
    return { code: await (await load())(argv, io), stdout, stderr };
  } catch (err) {
    return {
      code: 1,
      stdout,
      stderr: `${stderr}${command}: ${err instanceof Error ? err.message : String(err)}\n`,
    };
  }
}

/**
 * Serves `commands` on DATA_DIR's socket for the embedded database `pglite` that this process
 * holds at `DATA_DIR/pglite`. Only the socket's owner may connect (mode 600), as only they may
 * open the directory. Answers the closer.
 */
export async function serveCommands(
  dataDir: string,
  pglite: PGlite,
  commands: Record<string, () => Promise<CommandMain>>,
  env: NodeJS.ProcessEnv,
): Promise<() => Promise<void>> {
  const path = socketOf(dataDir);
  const dir = join(resolve(dataDir), 'pglite');
  // Whoever made a socket here held the database before us (the directory lock says it is gone).
  rmSync(path, { force: true });
  held.set(dir, pglite);
  const server: Server = createServer((socket) => {
    readLine(socket)
      .then((line) => answer(commands, { ...env, DATABASE_URL: '', DATA_DIR: dataDir }, line))
      .then(
        (reply) => socket.end(`${JSON.stringify(reply)}\n`),
        () => socket.destroy(),
      );
  });
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(path, () => done());
  });
  chmodSync(path, 0o600);
  return async () => {
    held.delete(dir);
    await new Promise<void>((done) => server.close(() => done()));
    rmSync(path, { force: true });
  };
}

/**
 * Runs the command in the process that holds the embedded database under `dataDir`, when one
 * serves its socket there; undefined when none does (no socket, or one left by a process gone).
 */
export async function forwardCommand(
  dataDir: string,
  command: string,
  argv: string[],
): Promise<Answer | undefined> {
  const path = socketOf(dataDir);
  if (!existsSync(path)) return undefined;
  const socket = connect(path);
  try {
    await new Promise<void>((done, fail) => {
      socket.once('connect', done);
      socket.once('error', fail);
    });
  } catch {
    socket.destroy();
    return undefined;
  }
  socket.write(`${JSON.stringify({ command, argv })}\n`);
  try {
    return answerSchema.parse(JSON.parse(await readLine(socket)));
  } finally {
    socket.destroy();
  }
}
