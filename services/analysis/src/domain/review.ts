import { publicReviewer, type Report } from '@meridian/contracts';

/**
 * The promise of the `audit_review` tier: a human review within 72 hours of the run's finish
 * (calendar hours, so the due time needs no holiday calendar); a review not recorded by then is
 * refunded.
 */
export const REVIEW_PROMISE_HOURS = 72;

export function reviewDueAt(finishedAt: Date): Date {
  return new Date(finishedAt.getTime() + REVIEW_PROMISE_HOURS * 3_600_000);
}

/** The finding the pipeline adds to a review-tier report while its review is pending. */
const PENDING_FINDING = 'review.pending';

/** The stored review of a run, as far as a report shows it. */
export interface ReviewRecord {
  note: string | null;
  author: string | null;
  reviewed_at: Date | null;
}

/**
 * The report as its readers see it: a report of the review tier carries its review, done with
 * note and author once recorded, else pending with the time it is due. Other tiers are unchanged.
 */
export function withReview(report: Report, record: ReviewRecord | undefined): Report {
  if (report.tier !== 'audit_review' || !report.finished_at) return report;
  const due_at = reviewDueAt(new Date(report.finished_at)).toISOString();
  if (record?.reviewed_at)
    return {
      ...report,
      // The pipeline's "review pending" notice no longer holds once the review is recorded.
      findings: report.findings.filter((f) => f.id !== PENDING_FINDING),
      review: {
        status: 'done',
        note: record.note,
        reviewed_at: record.reviewed_at.toISOString(),
        // A review recorded before nicknames were required may hold an address: never shown.
        author: publicReviewer(record.author),
        due_at,
      },
    };
  return { ...report, review: { status: 'pending', note: null, reviewed_at: null, author: null, due_at } };
}

/** A review note: what the owner reads, so it has substance, and stays printable in the PDF. */
export const REVIEW_NOTE_MAX = 10_000;

/** The review as one line of text, the same on the shared page and in the PDF. */
export function reviewLine(review: NonNullable<Report['review']>): string {
  if (review.status === 'done')
    return `Human review by ${publicReviewer(review.author)} (${review.reviewed_at ?? ''}): ${review.note ?? 'done'}`;
  return `Human review: pending${review.due_at ? `, due ${review.due_at}` : ''}`;
}
