/**
 * The few HTML pages identity answers to a browser following a mailed link. No script (the CSP
 * allows none): a plain form that POSTs back, so that only a person's click changes anything.
 */
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(title: string, body: string): string {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)}</title></head>`,
    `<body><main><h1>${escapeHtml(title)}</h1>${body}</main></body>`,
    '</html>',
  ].join('\n');
}

/** GET /auth/verify-email?token=: changes nothing; its button posts the token. */
export function confirmEmailPage(token: string): string {
  return page(
    'Confirm your email address',
    '<form method="post" action="/auth/verify-email">' +
      `<input type="hidden" name="token" value="${escapeHtml(token)}">` +
      '<button type="submit">Confirm my email address</button></form>',
  );
}

export function emailConfirmedPage(): string {
  return page('Email address confirmed', '<p>Your email address is confirmed; you can sign in now.</p>');
}

export function invalidLinkPage(): string {
  return page(
    'This link does not work',
    '<p>The confirmation link is unknown, used or expired. Ask for a new one and use the latest.</p>',
  );
}
