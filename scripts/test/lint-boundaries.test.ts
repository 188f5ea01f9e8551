import { describe, expect, it } from '@jest/globals';
import { ESLint } from 'eslint';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import tseslint from 'typescript-eslint';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
// The fixtures are no files of a tsconfig, and the rules under test need no types.
const eslint = new ESLint({ cwd: ROOT, overrideConfig: tseslint.configs.disableTypeChecked });

/** The no-restricted-* messages the repository's lint config gives `code` as if it were at `path`. */
async function boundaryErrors(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(ROOT, path) });
  return result!.messages
    .filter((m) => m.ruleId?.startsWith('no-restricted-'))
    .map((m) => `${m.ruleId}: ${m.message}`);
}

describe('lint keeps domain/ free of I/O', () => {
  const domainFile = 'services/billing/src/domain/fixture.ts';

  it.each([
    "import { sql } from 'kysely';",
    "import { connect } from 'nats';",
    "import { jetstream } from '@nats-io/jetstream';",
    "import express from 'express';",
    "import { envelope } from '@meridian/http-kit';",
    "import type { Bus } from '@meridian/bus';",
    "import { openDatabase } from '@meridian/db';",
    "import pg from 'pg';",
    "import { readFileSync } from 'node:fs';",
    "import { readFile } from 'fs/promises';",
    "import { lookup } from 'node:dns';",
    "import { resolve } from 'dns/promises';",
    "import { connect } from 'net';",
    "import { connect } from 'node:tls';",
    "import type { IncomingMessage } from 'node:http';",
    "import { get } from 'https';",
    "import { createSocket } from 'node:dgram';",
    "import { spawn } from 'child_process';",
  ])('refuses %s', async (line) => {
    const errors = await boundaryErrors(
      domainFile,
      `${line}\nexport const used = [${line.match(/import (?:type )?\{? ?(\w+)/)![1]}];\n`,
    );
    expect(errors).toEqual([expect.stringMatching(/^no-restricted-imports: .*domain\/ is pure/)]);
  });

  it('refuses fetch, global or through globalThis', async () => {
    const errors = await boundaryErrors(
      'gateway/src/domain/fixture.ts',
      "export const a = () => fetch('http://x');\nexport const b = () => globalThis.fetch('http://x');\n",
    );
    expect(errors).toEqual([
      expect.stringMatching(/^no-restricted-globals: /),
      expect.stringMatching(/^no-restricted-properties: /),
    ]);
  });

  it('lets domain/ import contracts, zod and its own files, and lets flows/ do I/O', async () => {
    const pure =
      "import { z } from 'zod';\nimport { ok } from '@meridian/contracts';\nimport { priceList } from './prices.js';\nexport const used = [z, ok, priceList];\n";
    expect(await boundaryErrors('services/billing/src/domain/fixture.ts', pure)).toEqual([]);
    const flow = "import { sql } from 'kysely';\nexport const used = [sql, fetch];\n";
    expect(await boundaryErrors('services/billing/src/flows/fixture.ts', flow)).toEqual([]);
  });
});

describe('lint keeps services apart', () => {
  it.each([
    ['services/billing/src/flows/fixture.ts', "import { start } from '@meridian/identity';"],
    ['services/billing/src/flows/fixture.ts', "import { start } from '../../../identity/src/main.js';"],
    ['services/data/test/integration/fixture.ts', "import { start } from '../../../identity/src/main.js';"],
    ['tests-e2e/fixture.ts', "import { start } from '../services/identity/src/main.js';"],
    ['bench/fixture.ts', "import { start } from '@meridian/data';"],
    ['gateway/src/fixture.ts', "import { start } from '@meridian/identity';"],
    ['gateway/bench/fixture.ts', "import { start } from '../../services/identity/src/main.js';"],
    ['packages/http-kit/src/fixture.ts', "import { start } from '@meridian/billing';"],
    ['gateway/test/fixture.ts', "import { start } from '../../services/identity/src/main.js';"],
    ['gateway/test/integration/fixture.ts', "import { start } from '@meridian/identity';"],
  ])('refuses %s importing: %s', async (path, line) => {
    const errors = await boundaryErrors(path, `${line}\nexport const used = start;\n`);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^no-restricted-imports: /);
  });

  it('lets a service import itself, its tests and benches import its src/, and packages be shared', async () => {
    const own =
      "import { start } from '../src/main.js';\nimport { ok } from '@meridian/contracts';\nexport const used = [start, ok];\n";
    expect(await boundaryErrors('services/identity/bench/fixture.ts', own)).toEqual([]);
    expect(await boundaryErrors('services/identity/test/fixture.ts', own)).toEqual([]);
    const gatewayOwn =
      "import { createGateway } from '../src/app.js';\nimport { freePort } from '../../bench/support.js';\nexport const used = [createGateway, freePort];\n";
    expect(await boundaryErrors('gateway/bench/fixture.ts', gatewayOwn)).toEqual([]);
  });
});
