import { createHash } from 'node:crypto';
import { SEVERITIES, escapeHtml, type Finding, type Report } from '@meridian/contracts';
import { areasLine } from './report.js';
import { reviewLine } from './review.js';

/**
 * The shared report as a web page: readable on a phone, with no script at all. The one style
 * sheet is allowed by its hash, so the page's Content-Security-Policy needs no 'unsafe-inline'.
 */
const STYLE = [
  'body{font:16px/1.5 system-ui,sans-serif;margin:0;color:#1a1a1a;background:#fafafa}',
  'main{max-width:52rem;margin:0 auto;padding:1rem}',
  'h1{font-size:1.4rem;margin:.5rem 0}',
  '.grade{display:inline-block;font-size:2.5rem;font-weight:700;padding:.25rem 1rem;border-radius:.5rem;background:#1f3a5f;color:#fff}',
  'table{width:100%;border-collapse:collapse;margin:1rem 0}',
  'th,td{text-align:left;vertical-align:top;padding:.5rem;border-bottom:1px solid #ddd;word-break:break-word}',
  '.sev{font-weight:600;text-transform:uppercase;font-size:.8rem}',
  '.critical,.high{color:#a40000}.medium{color:#8a5300}.low{color:#3d5a80}.info{color:#555}',
  '@media (max-width:40rem){table,tbody,tr,td{display:block}thead{display:none}td{border:0;padding:.25rem 0}tr{border-bottom:1px solid #ddd;padding:.5rem 0}}',
].join('');

const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64');

/** The page's own policy: nothing but its style sheet (and the PDF link, a plain navigation). */
export const REPORT_PAGE_CSP = `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;

function page(title: string, body: string): string {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="robots" content="noindex">',
    '<meta name="referrer" content="no-referrer">',
    `<title>${escapeHtml(title)}</title>`,
    `<style>${STYLE}</style>`,
    '</head>',
    `<body><main>${body}</main></body>`,
    '</html>',
  ].join('\n');
}

const bySeverity = (a: Finding, b: Finding) =>
  SEVERITIES.indexOf(a.severity) - SEVERITIES.indexOf(b.severity);

function findingRow(f: Finding): string {
  return `<tr><td class="sev ${f.severity}">${f.severity}</td><td><strong>${escapeHtml(f.title)}</strong><br><small>${escapeHtml(f.evidence)}</small></td><td>${escapeHtml(f.remediation)}</td></tr>`;
}

function notRunRow(f: Finding): string {
  return `<tr><td><strong>${escapeHtml(f.title)}</strong></td><td>${escapeHtml(f.evidence)}</td><td>${escapeHtml(f.remediation)}</td></tr>`;
}

/** The report page; `pdfHref` is where the same report downloads as a PDF. */
export function reportPage(report: Report, pdfHref: string): string {
  const problems = report.findings.filter((f) => f.outcome === 'problem').sort(bySeverity);
  const notRun = report.findings.filter((f) => f.outcome === 'not_run');
  const passed = report.findings.filter((f) => f.outcome === 'passed');
  const body = [
    `<h1>Audit of ${escapeHtml(report.domain)}</h1>`,
    `<p><span class="grade" aria-label="Grade ${escapeHtml(report.grade ?? 'none')}">${escapeHtml(report.grade ?? '–')}</span> score ${report.score ?? '–'}</p>`,
    areasLine(report) ? `<p class="areas">By area: ${escapeHtml(areasLine(report))}</p>` : '',
    `<p>${escapeHtml(report.summary)}</p>`,
    `<p>Tier ${escapeHtml(report.tier)}, finished ${escapeHtml(report.finished_at ?? 'not yet')}. <a href="${escapeHtml(pdfHref)}">Download the PDF</a></p>`,
    report.review ? `<p class="review">${escapeHtml(reviewLine(report.review))}</p>` : '',
    `<h2>Findings (${problems.length})</h2>`,
    problems.length === 0
      ? '<p>No problems found.</p>'
      : `<table><thead><tr><th>Severity</th><th>Finding</th><th>Remediation</th></tr></thead><tbody>${problems.map(findingRow).join('')}</tbody></table>`,
    notRun.length === 0 ? '' : `<h2>Not run (${notRun.length})</h2>`,
    notRun.length === 0
      ? ''
      : `<table><thead><tr><th>Check</th><th>Why it did not run</th><th>To run it</th></tr></thead><tbody>${notRun.map(notRunRow).join('')}</tbody></table>`,
    `<h2>Passed checks (${passed.length})</h2>`,
    `<ul>${passed.map((f) => `<li>${escapeHtml(f.title)}</li>`).join('')}</ul>`,
  ].join('\n');
  return page(`Audit of ${report.domain}: ${report.grade ?? 'pending'}`, body);
}

const NOTICES = {
  revoked: ['Link revoked', 'This share link was revoked by the report owner. Ask them for a new one.'],
  expired: ['Link expired', 'This share link has expired. Ask the report owner for a new one.'],
  not_found: ['Link not found', 'No report is shared under this link.'],
  sign_in: [
    'Sign in to read this report',
    'This report is shared with signed-in accounts only. Sign in, then open the link again.',
  ],
  not_for_you: [
    'Not shared with you',
    'This report is shared with named people only, and your account is not one of them.',
  ],
} as const;

/** A plain page saying why a share link shows nothing. */
export function noticePage(kind: keyof typeof NOTICES): string {
  const [title, text] = NOTICES[kind];
  return page(title, `<h1>${title}</h1>\n<p>${text}</p>`);
}
