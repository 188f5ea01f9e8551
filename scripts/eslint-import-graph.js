import importX from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

/** A type-only import or export read as a value one: import-x's no-cycle skips type-only edges. */
function countAsValue(node) {
  const kind = node.type === 'ImportDeclaration' ? 'importKind' : 'exportKind';
  if (!(kind in node)) return node;
  const specifiers = node.specifiers?.map((s) => (s[kind] === 'type' ? { ...s, [kind]: 'value' } : s));
  return { ...node, [kind]: 'value', ...(specifiers ? { specifiers } : {}) };
}

const MODULE_STATEMENTS = new Set(['ImportDeclaration', 'ExportNamedDeclaration', 'ExportAllDeclaration']);

/**
 * The parser import-x reads the imported files with (its `import-x/parsers` setting): TypeScript's,
 * with every type-only import and export read as a value one, so that no-cycle follows them too.
 */
export function parseForESLint(code, options) {
  // Only the module statements are read: no tokens, no comments.
  const parsed = tseslint.parser.parseForESLint(code, { ...options, tokens: false, comment: false });
  parsed.ast.body = parsed.ast.body.map((node) =>
    MODULE_STATEMENTS.has(node.type) ? countAsValue(node) : node,
  );
  return parsed;
}

const core = importX.rules['no-cycle'];

/**
 * import-x's no-cycle, with its options, except that a type-only import closes a circle too: two
 * files that need each other's types are one module cut in two, and neither can be read first.
 */
export const noCycle = {
  meta: { ...core.meta, docs: { description: core.meta.docs.description } },
  defaultOptions: core.defaultOptions,
  create(context) {
    const listeners = core.create(context);
    const wrapped = Object.entries(listeners).map(([selector, listen]) => [
      selector,
      MODULE_STATEMENTS.has(selector) ? (node) => listen(countAsValue(node)) : listen,
    ]);
    return Object.fromEntries(wrapped);
  },
};
