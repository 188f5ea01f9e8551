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
