import { SEVERITIES, type Finding, type Report } from '@meridian/contracts';
import { areasLine } from '../domain/report.js';
import { reviewLine } from '../domain/review.js';

const MARGIN = 50;
const COLUMNS = [
  { title: 'Severity', width: 70 },
  { title: 'Finding and evidence', width: 235 },
  { title: 'Remediation', width: 190 },
] as const;
const PAD = 4;

const bySeverity = (a: Finding, b: Finding) =>
  SEVERITIES.indexOf(a.severity) - SEVERITIES.indexOf(b.severity);

/**
 * The report as a PDF: a cover block with the grade and summary, then the findings table, worst
 * first, continued on as many pages as it needs with its header repeated, then the checks that
 * did not run (with why), then the passed checks.
 * Built with pdfkit's standard fonts, so nothing is read from disk but pdfkit's own metrics.
 * pdfkit (with its font engine) is loaded by the first PDF asked for, not at start: a process that
 * renders none does not hold its ~5 MB.
 */
export async function renderReportPdf(report: Report): Promise<Buffer> {
  const { default: PDFDocument } = await import('pdfkit');
  const doc = new PDFDocument({
    size: 'A4',
    margin: MARGIN,
    info: { Title: `Audit of ${report.domain}`, Author: 'Meridian', Subject: `Run ${report.run_id}` },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  cover(doc, report);
  findingsTable(doc, report.findings.filter((f) => f.outcome === 'problem').sort(bySeverity));
  notRunList(
    doc,
    report.findings.filter((f) => f.outcome === 'not_run'),
  );
  passedList(
    doc,
    report.findings.filter((f) => f.outcome === 'passed'),
  );
  doc.end();
  return done;
}

function cover(doc: PDFKit.PDFDocument, report: Report): void {
  doc.font('Helvetica-Bold').fontSize(20).text(`Audit of ${report.domain}`);
  doc.moveDown(0.5);
  doc
    .font('Helvetica-Bold')
    .fontSize(36)
    .text(`Grade ${report.grade ?? '-'}`, { continued: true });
  doc
    .font('Helvetica')
    .fontSize(14)
    .text(`   score ${report.score ?? '-'}`);
  doc.moveDown(0.5);
  doc
    .fontSize(10)
    .text(`Tier ${report.tier}. Run ${report.run_id}, finished ${report.finished_at ?? 'not yet'}.`);
  if (areasLine(report)) doc.text(`By area: ${areasLine(report)}`);
  if (report.review) doc.text(reviewLine(report.review));
  doc.moveDown(0.5);
  doc.fontSize(11).text(report.summary);
  doc.moveDown(1);
}

function rowHeight(doc: PDFKit.PDFDocument, cells: string[]): number {
  return (
    Math.max(...cells.map((text, i) => doc.heightOfString(text, { width: COLUMNS[i]!.width - 2 * PAD }))) +
    2 * PAD
  );
}

function drawRow(doc: PDFKit.PDFDocument, cells: string[], y: number, height: number, bold: boolean): void {
  let x = MARGIN;
  doc.font(bold ? 'Helvetica-Bold' : 'Helvetica');
  cells.forEach((text, i) => {
    doc.text(text, x + PAD, y + PAD, { width: COLUMNS[i]!.width - 2 * PAD });
    x += COLUMNS[i]!.width;
  });
  doc
    .moveTo(MARGIN, y + height)
    .lineTo(x, y + height)
    .lineWidth(0.5)
    .strokeColor('#999999')
    .stroke();
}

function findingsTable(doc: PDFKit.PDFDocument, findings: Finding[]): void {
  doc.font('Helvetica-Bold').fontSize(14).text(`Findings (${findings.length})`);
  doc.moveDown(0.3);
  if (findings.length === 0) {
    doc.font('Helvetica').fontSize(10).text('No problems found.');
    return;
  }
  doc.fontSize(9);
  const bottom = doc.page.height - MARGIN;
  const header = COLUMNS.map((c) => c.title);
  let y = doc.y;
  const headerHeight = rowHeight(doc, header);
  drawRow(doc, header, y, headerHeight, true);
  y += headerHeight;
  for (const f of findings) {
    const cells = [f.severity.toUpperCase(), `${f.title}\n${f.evidence}`, f.remediation];
    const height = rowHeight(doc, cells);
    if (y + height > bottom) {
      doc.addPage();
      y = MARGIN;
      drawRow(doc, header, y, headerHeight, true);
      y += headerHeight;
    }
    drawRow(doc, cells, y, height, false);
    y += height;
  }
  doc.x = MARGIN;
  doc.y = y + 12;
}

/** Checks that did not run: each with why, and what would let it run. */
function notRunList(doc: PDFKit.PDFDocument, notRun: Finding[]): void {
  if (notRun.length === 0) return;
  doc.font('Helvetica-Bold').fontSize(14).text(`Not run (${notRun.length})`, MARGIN);
  doc.moveDown(0.3);
  for (const f of notRun) {
    doc.font('Helvetica-Bold').fontSize(9).text(f.title);
    doc.font('Helvetica').text(`Why: ${f.evidence}`);
    if (f.remediation) doc.text(`To run it: ${f.remediation}`);
    doc.moveDown(0.3);
  }
  doc.moveDown(0.5);
}

function passedList(doc: PDFKit.PDFDocument, passed: Finding[]): void {
  if (passed.length === 0) return;
  doc.font('Helvetica-Bold').fontSize(14).text(`Passed checks (${passed.length})`, MARGIN);
  doc.moveDown(0.3);
  doc.font('Helvetica').fontSize(9);
  for (const f of passed) doc.text(`- ${f.title}`);
}
