import { createHash } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { bookingConfirmedMail } from '../../src/domain/mail.js';
import { PAGE_CSP, confirmEmailPage, resetPasswordPage, unlockPage } from '../../src/routes/pages.js';

describe("identity's mailed-link pages and the booking mail", () => {
  it('links the booking mail to the portal page of bookings, not to the JSON API', () => {
    const mail = bookingConfirmedMail('a@example.com', 'https://meridian.example/', {
      booking_id: 'booking-1',
      starts_at: '2026-12-03T10:00:00.000Z',
      ends_at: '2026-12-03T11:00:00.000Z',
      topic: null,
    });
    expect(mail.text).toContain('https://meridian.example/#/consulting');
    expect(mail.text).not.toContain('/v1/');
  });

  it('styles every page with the one style block its policy allows by hash, and no script', () => {
    for (const html of [confirmEmailPage('t'), resetPasswordPage('t', null), unlockPage('t')]) {
      const style = /<style>(.*)<\/style>/s.exec(html)?.[1];
      expect(style).toContain('system-ui');
      const hash = createHash('sha256').update(style!).digest('base64');
      expect(PAGE_CSP).toContain(`style-src 'sha256-${hash}'`);
      expect(html).not.toContain('<script');
      expect(html).toContain('<a href="/#/welcome">Meridian</a>');
    }
    expect(PAGE_CSP).toContain("default-src 'none'");
  });
});
