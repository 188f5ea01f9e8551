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
  rules: { 'no-addressed-comments': noAddressedComments },
};
