import { describe, expect, it } from '@jest/globals';
import { escapeHtml } from '../src/html.js';

describe('escapeHtml', () => {
  it('escapes the five characters that can end a text or a quoted attribute value', () => {
    expect(escapeHtml(`"'<>&`)).toBe('&quot;&#39;&lt;&gt;&amp;');
  });

  it('leaves other text as it is, an entity it already holds escaped once more', () => {
    expect(escapeHtml('Grade A – 90/100')).toBe('Grade A – 90/100');
    expect(escapeHtml('&amp;')).toBe('&amp;amp;');
  });

  it('leaves no way out of an attribute value', () => {
    const value = `x" onload="alert(1)`;
    expect(`<input value="${escapeHtml(value)}">`).toBe('<input value="x&quot; onload=&quot;alert(1)">');
  });
});
