import { describe, expect, it } from '@jest/globals';
import { ESLint } from 'eslint';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import tseslint from 'typescript-eslint';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
// The fixtures are no files of a tsconfig, and the rules under test need no types.
const eslint = new ESLint({ cwd: ROOT, overrideConfig: tseslint.configs.disableTypeChecked });

/** The rules (of `rules`) the repository's lint config breaks in `code` as if it were at `path`. */
async function broken(path: string, code: string, rules: string[]): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(ROOT, path) });
  return result!.messages.map((m) => m.ruleId ?? m.message).filter((id) => rules.includes(id));
}

describe('lint keeps comments about the code', () => {
  const rule = ['meridian/no-addressed-comments'];

  it.each([
    '// The gateway proxies it (issue 19).',
    '/* See Issue #7 for the history. */',
    '// TODO: cache this',
    '/** FIXME when the upstream answers in UTC. */',
    '// XXX: a hack',
    '// todo: cache this',
    '// You should rotate the key here.',
    '// We need to keep this in sync with billing.',
  ])('refuses %s', async (comment) => {
    expect(
      await broken('services/billing/src/flows/fixture.ts', `${comment}\nexport const a = 1;\n`, rule),
    ).toEqual(rule);
  });

  it('lets a comment say why, in the code’s own terms', async () => {
    const code =
      '// Each issuer answers in its own time zone: we convert at the edge.\n// A todo list of the person.\nexport const issues = 1;\n';
    expect(await broken('services/billing/src/flows/fixture.ts', code, rule)).toEqual([]);
  });
});

describe('lint keeps files and functions small', () => {
  const rules = ['max-lines', 'meridian/max-lines-per-function'];
  /** A function of `lines` lines in all, its braces included. */
  const fn = (name: string, lines: number) =>
    `export function ${name}(): number {\n  let n = 0;\n${'  n += 1;\n'.repeat(lines - 4)}  return n;\n}\n`;
  const statements = (lines: number) => 'export const a = 1;\n'.repeat(lines);

  it('refuses a source file of 351 lines, counted as wc -l does, and lets one of 350 pass', async () => {
    expect(await broken('services/billing/src/flows/fixture.ts', statements(351), rules)).toEqual([
      'max-lines',
    ]);
    expect(await broken('services/billing/src/flows/fixture.ts', statements(350), rules)).toEqual([]);
    expect(await broken('bench/fixture.ts', `${'\n'.repeat(340)}${statements(11)}`, rules)).toEqual([
      'max-lines',
    ]);
  });

  it('refuses a function of 81 lines and lets one of 80 pass', async () => {
    expect(await broken('services/billing/src/flows/fixture.ts', fn('long', 81), rules)).toEqual([
      'meridian/max-lines-per-function',
    ]);
    expect(await broken('services/billing/scripts/fixture.ts', fn('short', 80), rules)).toEqual([]);
  });

  it('counts each test of a describe(...), not the describe callback, and holds a test file to 350 lines too', async () => {
    const test = (lines: number) =>
      `  it('works', () => {\n${'    expect(1).toBe(1);\n'.repeat(lines - 2)}  });\n`;
    const file = (tests: string[]) =>
      `import { describe, expect, it } from '@jest/globals';\ndescribe('a', () => {\n${tests.join('')}});\n`;
    const path = 'services/billing/test/unit/fixture.test.ts';
    expect(await broken(path, file([test(80), test(80), test(80), test(80)]), rules)).toEqual([]);
    expect(await broken(path, file([test(80), test(80), test(80), test(80), test(80)]), rules)).toEqual([
      'max-lines',
    ]);
    expect(await broken(path, file([test(81)]), rules)).toEqual(['meridian/max-lines-per-function']);
  });
});

describe('lint refuses a circle of imports', () => {
  const rule = ['meridian/no-cycle'];
  // packages/db/src/command.ts imports command-socket.ts, whose place the code below takes.
  const path = 'packages/db/src/command-socket.ts';

  it('refuses a file that imports, even for a type alone, a file that imports it', async () => {
    const typeOnly = "import type { CommandRefused } from './command.js';\nexport type A = CommandRefused;\n";
    expect(await broken(path, typeOnly, rule)).toEqual(rule);
    const value = "import { processIo } from './command.js';\nexport const io = processIo;\n";
    expect(await broken(path, value, rule)).toEqual(rule);
  });

  it('lets a file import the files below it', async () => {
    const below = "import type { DatabaseTarget } from './database.js';\nexport type A = DatabaseTarget;\n";
    expect(await broken(path, below, rule)).toEqual([]);
  });
});
