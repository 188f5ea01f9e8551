import { z } from 'zod';
import { auditTierSchema } from './billing.js';

/**
 * Analysis runs and reports (portal 4.3; the spec leaves states and bodies unshown: these are
 * ours, and services/analysis/README.md explains them). The pipeline produces a Report; the
 * routes, the PDF and the shared page render it.
 */

export const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;
export const severitySchema = z.enum(SEVERITIES);
export type Severity = z.infer<typeof severitySchema>;

export const CHECK_CATEGORIES = [
  'dns',
  'mail',
  'tls',
  'http',
  'headers',
  'cookies',
  'files',
  'content',
  'active',
  'review',
] as const;

/**
 * What became of one check: it passed, it found a problem, or it did not run (the stage could
 * not reach what it tests, or was not authorized to): the evidence then says why.
 */
export const FINDING_OUTCOMES = ['passed', 'problem', 'not_run'] as const;

const findingObjectSchema = z.object({
  /** Stable id of the check and outcome, e.g. `headers.hsts.missing`; diffs between runs use it. */
  id: z.string(),
  category: z.enum(CHECK_CATEGORIES),
  title: z.string(),
  severity: severitySchema,
  outcome: z.enum(FINDING_OUTCOMES),
  /** true when the outcome is `passed` (shown as a good practice found); readers that know only it keep working. */
  passed: z.boolean(),
  /** What was observed, quoted from the target (a header value, a record, a status line), or why the check did not run. */
  evidence: z.string(),
  /** What to change; empty for a passed check. */
  remediation: z.string(),
  /** Points this finding adds to or takes from the score (HTTP Observatory style). */
  score_modifier: z.number().int(),
});

/** One result of one check: what was looked at, what was seen, and what to do. */
export const findingSchema = z.preprocess(
  // Reports stored before `outcome` existed: it follows from `passed`.
  (value) =>
    typeof value === 'object' && value !== null && !('outcome' in value)
      ? { ...value, outcome: (value as { passed?: unknown }).passed === true ? 'passed' : 'problem' }
      : value,
  findingObjectSchema,
);
export type Finding = z.infer<typeof findingSchema>;

export const GRADES = ['A+', 'A', 'A-', 'B+', 'B', 'B-', 'C+', 'C', 'C-', 'D+', 'D', 'D-', 'F'] as const;
export const gradeSchema = z.enum(GRADES);

/** The areas a report grades apart beside the overall grade (services/analysis/docs/scoring.md). */
export const REPORT_AREAS = ['headers', 'transport', 'mail_dns', 'exposure'] as const;
export type ReportArea = (typeof REPORT_AREAS)[number];
export const REPORT_AREA_NAMES: Readonly<Record<ReportArea, string>> = {
  headers: 'Headers',
  transport: 'Transport (TLS)',
  mail_dns: 'Mail and DNS',
  exposure: 'Exposure',
};
export const reportAreaScoreSchema = z.object({
  area: z.enum(REPORT_AREAS),
  /** null when none of the area's checks ran, or the site could not be graded. */
  score: z.number().int().nullable(),
  grade: gradeSchema.nullable(),
});
export type ReportAreaScore = z.infer<typeof reportAreaScoreSchema>;

export const RUN_STATUSES = ['awaiting_payment', 'queued', 'running', 'succeeded', 'failed'] as const;
export const runStatusSchema = z.enum(RUN_STATUSES);

/** The finished report of a run (GET /v1/analysis/report/{id}, the PDF and the shared page). */
export const reportSchema = z.object({
  run_id: z.string(),
  domain: z.string(),
  tier: auditTierSchema,
  status: runStatusSchema,
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  /**
   * 0 and up; 100 is the baseline before modifiers, as the HTTP Observatory counts. null while
   * the run is unfinished, and when the home page answered a server error (not graded).
   */
  score: z.number().int().nullable(),
  grade: gradeSchema.nullable(),
  /** Each area's own score and grade; absent on reports made before areas were graded. */
  areas: z.array(reportAreaScoreSchema).optional(),
  summary: z.string(),
  findings: z.array(findingSchema),
  /** Since the previous finished run of the same domain: ids of findings new and resolved. */
  changes: z
    .object({ previous_run_id: z.string(), new: z.array(z.string()), resolved: z.array(z.string()) })
    .nullable(),
  /** Review tier: the human review, pending until an operator records it. */
  review: z
    .object({
      status: z.enum(['pending', 'done']),
      note: z.string().nullable(),
      reviewed_at: z.string().nullable(),
      /** The reviewing operator's public nickname, or UNNAMED_REVIEWER: never an email. */
      author: z.string().nullable().optional(),
      /** When the review is promised by; overdue, the run is refunded. */
      due_at: z.string().nullable().optional(),
    })
    .nullable(),
});
export type Report = z.infer<typeof reportSchema>;

/** One event of a run's live trace (GET /v1/analysis/report/{id}/trace). */
export const traceEventSchema = z.object({
  seq: z.number().int(),
  at: z.string(),
  stage: z.string(),
  status: z.enum(['started', 'finished', 'failed', 'info']),
  message: z.string(),
});
export type TraceEvent = z.infer<typeof traceEventSchema>;

/** POST /v1/analysis/report/{id}/share body: who the link works for, and until when. */
export const shareBodySchema = z
  .object({
    audience: z
      .enum(['anyone', 'signed_in', 'emails'])
      .default('anyone')
      .describe(
        'anyone with the link; signed-in accounts only; or the signed-in accounts of the named emails',
      ),
    emails: z
      .array(z.email().max(254))
      .min(1)
      .max(50)
      .optional()
      .describe('With audience emails: who may read'),
    expires_at: z.iso
      .datetime({ offset: true })
      .optional()
      .describe('When the link stops working; default never'),
  })
  .strict()
  .refine((b) => (b.audience === 'emails') === (b.emails !== undefined), {
    message: 'emails: give them with audience "emails", and only then',
    path: ['emails'],
  });

/** The minted link (shown once). */
export const shareLinkSchema = z.object({
  url: z.string(),
  token: z.string(),
  audience: z.enum(['anyone', 'signed_in', 'emails']),
  emails: z.array(z.string()),
  expires_at: z.string().nullable(),
});

/** How a review names an operator who has set no nickname: a report travels, an address stays private. */
export const UNNAMED_REVIEWER = 'a Meridian reviewer';

/**
 * The author a review shows: the nickname, or UNNAMED_REVIEWER for none, and for an address a
 * review recorded before this rule (or a nickname shaped like one) carries.
 */
export function publicReviewer(author: string | null | undefined): string {
  return author && !author.includes('@') ? author : UNNAMED_REVIEWER;
}

/** analysis.review.recorded.v1 — an operator recorded the human review of a run; identity mails the owner. */
export const reviewRecordedSchema = z.object({
  run_id: z.string(),
  account_id: z.string(),
  domain: z.string(),
  author: z.string(),
  reviewed_at: z.string(),
});
export type ReviewRecorded = z.infer<typeof reviewRecordedSchema>;
