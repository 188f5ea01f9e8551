import { describe, expect, it } from '@jest/globals';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { renderReportPdf } from '../../src/adapters/report-pdf.js';
import { reportPage } from '../../src/domain/report-html.js';
import { reviewDueAt, reviewLine, withReview } from '../../src/domain/review.js';
import { sampleReport } from '../report-fixture.js';

const FINISHED = '2026-11-20T10:00:00.000Z';
const reviewTier = () => ({
  ...sampleReport('run-review01'),
  tier: 'audit_review' as const,
  finished_at: FINISHED,
});

async function pdfText(pdf: Buffer): Promise<string> {
  const doc = await getDocument({ data: new Uint8Array(pdf), useSystemFonts: false }).promise;
  const texts: string[] = [];
  for (let p = 1; p <= doc.numPages; p++) {
    const content = await (await doc.getPage(p)).getTextContent();
    texts.push(content.items.map((i) => ('str' in i ? i.str : '')).join(' '));
  }
  return texts.join('\n');
}

describe('the human review of a report', () => {
  it('is due 72 hours after the run finished', () => {
    expect(reviewDueAt(new Date(FINISHED)).toISOString()).toBe('2026-11-23T10:00:00.000Z');
  });

  it('is pending with its due time until recorded, then done with note and author', () => {
    expect(withReview(reviewTier(), undefined).review).toEqual({
      status: 'pending',
      note: null,
      reviewed_at: null,
      author: null,
      due_at: '2026-11-23T10:00:00.000Z',
    });
    const done = withReview(reviewTier(), {
      note: 'All real.',
      author: 'desk-ana',
      reviewed_at: new Date('2026-11-21T09:00:00Z'),
    });
    expect(done.review).toMatchObject({ status: 'done', note: 'All real.', author: 'desk-ana' });
    const withNotice = {
      ...reviewTier(),
      findings: [...reviewTier().findings, { ...reviewTier().findings[0]!, id: 'review.pending' }],
    };
    expect(withReview(withNotice, undefined).findings.map((f) => f.id)).toContain('review.pending');
    const reviewed = withReview(withNotice, { note: 'x', author: 'a', reviewed_at: new Date() });
    expect(reviewed.findings.map((f) => f.id)).not.toContain('review.pending');
    expect(reviewLine(done.review!)).toBe('Human review by desk-ana (2026-11-21T09:00:00.000Z): All real.');
  });

  it('leaves the reports of other tiers as they are', () => {
    const base = { ...sampleReport('run-base0001'), tier: 'audit_base' as const };
    expect(withReview(base, undefined)).toBe(base);
  });

  it('is shown on the shared page and in the PDF', async () => {
    const pending = withReview(reviewTier(), undefined);
    expect(reportPage(pending, 'x/pdf')).toContain('Human review: pending, due 2026-11-23T10:00:00.000Z');
    const done = withReview(reviewTier(), { note: 'All real.', author: 'desk-ana', reviewed_at: new Date() });
    expect(await pdfText(await renderReportPdf(done))).toContain('Human review by desk-ana');
  });
});
