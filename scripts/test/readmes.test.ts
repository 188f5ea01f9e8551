import { describe, expect, it } from '@jest/globals';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** Folders that hold no documentation of ours: installed packages, builds, run state. */
const SKIPPED = new Set(['node_modules', '.git', 'dist', '.data', 'artifacts']);
/** A README is read in ten minutes: longer notes go to the part's docs/ folder. */
const README_MAX_LINES = 250;
/** The READMEs held to that length: the root's and each part's (a service, an edge, a package). */
const PART_READMES = /^(README\.md|(services|packages)\/[^/]+\/README\.md|(gateway|mcp|portal)\/README\.md)$/;

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (SKIPPED.has(entry.name)) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return markdownFiles(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

/** Targets of `[text](target)` links that point into the repository (no scheme, no bare anchor). */
function linkTargets(text: string): string[] {
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1]!.split('#')[0]!)
    .filter((t) => t !== '' && !/^[a-z]+:/i.test(t));
}

/** Extensions of the repository's own files that a document names: sources, notes, settings. */
const FILE_EXTENSION = /\.(ts|tsx|js|mjs|cjs|json|md|sql|ya?ml|sh)$/;

/**
 * Repository files named in code spans (`docs/memory.md`, `src/routes/data.ts`). A bare name
 * (`main.ts`) says which file only with its folder, so only a `.md` is checked without a slash.
 * Not files of ours: placeholders (`<name>`, `*`, `{a,b}`), URL paths (`/openapi.json`), package
 * names (`@solana/web3.js`), paths under a setting (`DATA_DIR/...`) or a build (`dist/...`).
 */
function namedFiles(text: string): string[] {
  return [...text.matchAll(/`([^`\s]+)`/g)]
    .map((m) => m[1]!.replace(/:\d+(-\d+)?$/, ''))
    .filter((t) => FILE_EXTENSION.test(t) && (t.includes('/') || t.endsWith('.md')))
    .filter((t) => !/[<>*{}]/.test(t) && !/^([a-z]+:|\/|@|[A-Z_]+\/|dist\/)/.test(t));
}

/**
 * Folders a named path is read from: the repository's root, the naming file's folder, and for a
 * file inside a part (services/data/docs/decisions.md) that part's folder and its src/.
 */
function baseFolders(file: string): string[] {
  const part = /^((services|packages)\/[^/]+|gateway|mcp|portal|bench|tests-e2e|deploy)\//.exec(
    relative(ROOT, file),
  )?.[1];
  const own = part === undefined ? [] : [join(ROOT, part), join(ROOT, part, 'src')];
  return [ROOT, dirname(file), ...own];
}

/** Lines of `text` outside fenced code blocks (commands and samples there are not references). */
function prose(text: string): string {
  let fenced = false;
  return text
    .split('\n')
    .filter((line) => {
      if (line.trimStart().startsWith('```')) fenced = !fenced;
      return !fenced;
    })
    .join('\n');
}

const docs = markdownFiles(ROOT);

describe('the documentation', () => {
  it(`keeps the root README and every part's README within ${README_MAX_LINES} lines`, () => {
    const readmes = docs.map((f) => relative(ROOT, f)).filter((f) => PART_READMES.test(f));
    const long = readmes
      .map((f) => ({ f, lines: readFileSync(join(ROOT, f), 'utf8').trimEnd().split('\n').length }))
      .filter(({ lines }) => lines > README_MAX_LINES)
      .map(({ f, lines }) => `${f}: ${lines} lines`);
    expect(readmes).toEqual(
      expect.arrayContaining(['README.md', 'gateway/README.md', 'services/data/README.md']),
    );
    expect(long).toEqual([]);
  });

  it('has a README in every package', () => {
    const packages = readdirSync(join(ROOT, 'packages'), { withFileTypes: true })
      .filter((e) => e.isDirectory() && existsSync(join(ROOT, 'packages', e.name, 'package.json')))
      .map((e) => e.name);
    expect(packages.length).toBeGreaterThan(0);
    expect(packages.filter((name) => !existsSync(join(ROOT, 'packages', name, 'README.md')))).toEqual([]);
  });

  it('has a docs/ index that links every note of docs/ and of every docs/ folder of a part', () => {
    const index = readFileSync(join(ROOT, 'docs', 'README.md'), 'utf8');
    const notes = docs
      .filter((f) => dirname(f).endsWith('/docs') && !f.endsWith('/docs/README.md'))
      .map((f) => relative(join(ROOT, 'docs'), f));
    expect(notes.length).toBeGreaterThan(0);
    expect(notes.filter((note) => !index.includes(`(${note})`))).toEqual([]);
  });

  it('links only to files that exist', () => {
    const broken = docs.flatMap((file) => {
      const text = prose(readFileSync(file, 'utf8'));
      const from = relative(ROOT, file);
      const links = linkTargets(text)
        .filter((t) => !existsSync(join(dirname(file), decodeURIComponent(t))))
        .map((t) => `${from}: (${t})`);
      const bases = baseFolders(file);
      const named = namedFiles(text)
        .filter((t) => !bases.some((base) => existsSync(join(base, t))))
        .map((t) => `${from}: \`${t}\``);
      return [...links, ...named];
    });
    expect(docs.length).toBeGreaterThan(10);
    expect(broken).toEqual([]);
  });
});
