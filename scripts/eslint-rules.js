import { builtinRules } from 'eslint/use-at-your-own-risk';
import { noCycle } from './eslint-import-graph.js';

/** The callee's name under any member access or call: `describe.each(t)(...)` is `describe`. */
function calleeName(callee) {
  let node = callee;
  while (node.type === 'CallExpression' || node.type === 'MemberExpression') {
    node = node.type === 'CallExpression' ? node.callee : node.object;
  }
  return node.type === 'Identifier' ? node.name : undefined;
}

const isDescribe = (call) =>
  call?.type === 'CallExpression' && /^describe/.test(calleeName(call.callee) ?? '');

/**
 * A jest describe(...) callback (describe.each, or an alias like describeWithBrowser), or a suite
 * made to be run against several implementations, whose body is one describe(...): they only group
 * tests.
 */
function isGrouping(node) {
  if (isDescribe(node.parent) && node.parent.arguments.includes(node)) return true;
  const body = node.body?.type === 'BlockStatement' ? node.body.body : [];
  return body.length === 1 && body[0].type === 'ExpressionStatement' && isDescribe(body[0].expression);
}

const core = builtinRules.get('max-lines-per-function');

/**
 * ESLint's max-lines-per-function, with its options, except that a describe(...) callback (or a
 * suite that is one describe) is no function: it runs no logic of its own, and the tests it holds
 * are each counted on their own.
 */
const maxLinesPerFunction = {
  meta: { ...core.meta, docs: { description: core.meta.docs.description } },
  create(context) {
    const report = (descriptor) => isGrouping(descriptor.node) || context.report(descriptor);
    return core.create(Object.create(context, { report: { value: report } }));
  },
};

/**
 * A comment says why, in the code's own terms: not which ticket asked for the code, not what a
 * reader should do about it later.
 */
const ADDRESSED = [/\bissue ?#?\d|\b(you|we) (should|must|need)\b/i, /\b(TODO|FIXME|XXX)\b|\btodo:/];

const noAddressedComments = {
  meta: {
    type: 'suggestion',
    docs: { description: 'Comments name no issue number and address no person.' },
    schema: [],
    messages: {
      addressed:
        'A comment says why in the code’s own terms: no issue number, TODO/FIXME/XXX or “you/we should”.',
    },
  },
  create(context) {
    return {
      Program() {
        for (const comment of context.sourceCode.getAllComments()) {
          if (ADDRESSED.some((re) => re.test(comment.value)))
            context.report({ loc: comment.loc, messageId: 'addressed' });
        }
      },
    };
  },
};

/** The house's own rules, as the ESLint plugin `meridian`. */
export default {
  meta: { name: 'meridian' },
  rules: {
    'max-lines-per-function': maxLinesPerFunction,
    'no-addressed-comments': noAddressedComments,
    'no-cycle': noCycle,
  },
};
