import { describe, expect, it } from '@jest/globals';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** Folders that hold no documentation of ours: installed packages, builds, run state. */
const SKIPPED = new Set(['node_modules', '.git', 'dist', '.data', 'artifacts']);
/** The root README is what a newcomer reads first: it must stay readable in ten minutes. */
const ROOT_README_MAX_LINES = 250;

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

/**
 * Markdown files named in code spans (`docs/memory.md`, `gateway/README.md`): read from the
 * repository's root or from the naming file's folder. Placeholders (`<name>`, `*`) are not files.
 */
function namedDocs(text: string): string[] {
  return [...text.matchAll(/`([^`\s]+\.md)`/g)]
    .map((m) => m[1]!)
    .filter((t) => !/[<>*]/.test(t) && !/^[a-z]+:/i.test(t));
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
  it(`keeps the root README within ${ROOT_README_MAX_LINES} lines`, () => {
    const lines = readFileSync(join(ROOT, 'README.md'), 'utf8').trimEnd().split('\n').length;
    expect(lines).toBeLessThanOrEqual(ROOT_README_MAX_LINES);
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
      const named = namedDocs(text)
        .filter((t) => !existsSync(join(ROOT, t)) && !existsSync(join(dirname(file), t)))
        .map((t) => `${from}: \`${t}\``);
      return [...links, ...named];
    });
    expect(docs.length).toBeGreaterThan(10);
    expect(broken).toEqual([]);
  });
});
