import { createHash } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { renderReportPdf } from '../../src/adapters/report-pdf.js';
import { escapeHtml } from '@meridian/contracts';
import { REPORT_PAGE_CSP, noticePage, reportPage } from '../../src/domain/report-html.js';
import {
  SHARE_TOKEN,
  hashShareToken,
  mintShareToken,
  shareVerdict,
  type ShareLink,
} from '../../src/domain/share.js';
import { notRun } from '../../src/domain/checks/finding.js';
import { sampleReport } from '../report-fixture.js';

/** The sample with active tests that could not run, as the pipeline reports them. */
const withNotRun = (runId: string) => {
  const report = sampleReport(runId);
  report.findings.push(
    notRun(
      'active.out-of-scope',
      'active',
      'Active tests were not run: the site is outside the authorized scope',
      'the site answers at https://shop.example.com; scope: /app/',
      'Authorize a scope that includes the site.',
    ),
  );
  return report;
};

const now = new Date('2026-11-25T12:00:00Z');
const link = (over: Partial<ShareLink> = {}): ShareLink => ({
  run_id: 'run-x',
  audience: { kind: 'anyone' },
  expires_at: null,
  revoked_at: null,
  ...over,
});
const viewer = { account_id: 'a', email: 'ana@example.com' };

describe('share links', () => {
  it('mints 256-bit tokens that only their hash names', () => {
    const token = mintShareToken();
    expect(token).toMatch(SHARE_TOKEN);
    expect(Buffer.from(token, 'base64url')).toHaveLength(32);
    expect(mintShareToken()).not.toBe(token);
    expect(hashShareToken(token)).toBe(createHash('sha256').update(token).digest('hex'));
  });

  it('admits by audience, and refuses a revoked or expired link whoever asks', () => {
    expect(shareVerdict(link(), null, now)).toBe('readable');
    expect(shareVerdict(link({ audience: { kind: 'signed_in' } }), null, now)).toBe('sign_in');
    expect(shareVerdict(link({ audience: { kind: 'signed_in' } }), viewer, now)).toBe('readable');
    const named = link({ audience: { kind: 'emails', emails: ['ana@example.com'] } });
    expect(shareVerdict(named, viewer, now)).toBe('readable');
    expect(shareVerdict(named, { account_id: 'b', email: 'bo@example.com' }, now)).toBe('not_for_you');
    expect(shareVerdict(named, { account_id: 'c', email: null }, now)).toBe('not_for_you');
    expect(shareVerdict(link({ revoked_at: now }), viewer, now)).toBe('revoked');
    expect(shareVerdict(link({ expires_at: new Date(now.getTime() - 1) }), viewer, now)).toBe('expired');
    expect(shareVerdict(link({ expires_at: new Date(now.getTime() + 1) }), null, now)).toBe('readable');
  });
});

describe('the shared report page', () => {
  it('shows grade, summary and findings worst first, escaped, with no script, its style allowed by hash', () => {
    const html = reportPage(sampleReport('run-page01'), 'tok/pdf');
    expect(html).toContain('<span class="grade" aria-label="Grade C">C</span>');
    expect(html).toContain('Strict-Transport-Security header missing');
    expect(html).toContain('Evidence &lt;b&gt;1&lt;/b&gt; &amp; more');
    expect(html).not.toMatch(/<script/i);
    expect(html).toContain('<a href="tok/pdf">Download the PDF</a>');
    expect(html.indexOf('class="sev critical"')).toBeLessThan(html.indexOf('class="sev high"'));
    const style = /<style>(.*)<\/style>/s.exec(html)![1]!;
    expect(REPORT_PAGE_CSP).toContain(`'sha256-${createHash('sha256').update(style).digest('base64')}'`);
    expect(REPORT_PAGE_CSP).not.toContain('unsafe-inline');
    expect(noticePage('revoked')).toContain('<h1>Link revoked</h1>');
    expect(escapeHtml(`"'<>&`)).toBe('&quot;&#39;&lt;&gt;&amp;');
  });
});

async function pdfText(pdf: Buffer): Promise<{ pages: number; text: string }> {
  const doc = await getDocument({ data: new Uint8Array(pdf), useSystemFonts: false }).promise;
  const texts: string[] = [];
  for (let p = 1; p <= doc.numPages; p++) {
    const content = await (await doc.getPage(p)).getTextContent();
    texts.push(content.items.map((i) => ('str' in i ? i.str : '')).join(' '));
  }
  return { pages: doc.numPages, text: texts.join('\n') };
}

describe('checks that did not run', () => {
  it('get their own section on the page, with why, and are not counted as problems', () => {
    const html = reportPage(withNotRun('run-page02'), 'tok/pdf');
    expect(html).toContain('<h2>Findings (3)</h2>');
    expect(html).toContain('<h2>Not run (1)</h2>');
    const section = html.slice(html.indexOf('<h2>Not run'), html.indexOf('<h2>Passed checks'));
    expect(section).toContain('Active tests were not run: the site is outside the authorized scope');
    expect(section).toContain('scope: /app/');
  });

  it('get their own section in the PDF', async () => {
    const { text } = await pdfText(await renderReportPdf(withNotRun('run-pdf00002')));
    expect(text).toContain('Findings (3)');
    expect(text).toContain('Not run (1)');
    expect(text).toContain('Why: the site answers at https://shop.example.com; scope: /app/');
  });
});

describe('the report PDF', () => {
  it('renders the grade, the summary and the findings table', async () => {
    const { pages, text } = await pdfText(await renderReportPdf(sampleReport('run-pdf00001')));
    expect(pages).toBe(1);
    expect(text).toContain('Grade C');
    expect(text).toContain('3 problems found on shop.example.com');
    expect(text).toContain('Strict-Transport-Security header missing');
    expect(text).toContain('Passed checks (2)');
  });

  it('spans several pages for 120 findings, every one of them in it', async () => {
    const { pages, text } = await pdfText(await renderReportPdf(sampleReport('run-pdf00120', 120)));
    expect(pages).toBeGreaterThan(3);
    expect(text).toContain('Finding number 119');
    expect(text.match(/Severity/g)!.length).toBeGreaterThanOrEqual(pages - 1);
  });
});
