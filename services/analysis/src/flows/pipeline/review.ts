import { fail } from '../../domain/checks/finding.js';
import type { Stage } from './context.js';

/** The review tier's human review: a task for an operator, pending until one records it. */
export const reviewStage: Stage = {
  name: 'review',
  async run(ctx) {
    await ctx.trace('review', 'info', 'review task created for an operator');
    return [
      fail(
        'review.pending',
        'review',
        'A human review of this audit is pending',
        'info',
        'an operator reviews the findings and adds a note',
        'Nothing to do: the note is added to this report when the review is done.',
      ),
    ];
  },
};
