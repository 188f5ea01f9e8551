import { describe, expect, it } from '@jest/globals';
import { cookieValue } from '../src/index.js';

const NAME = 'meridian_session';

describe('one cookie out of a Cookie header', () => {
  it('reads the cookie of the name, percent-decoded, among others', () => {
    expect(cookieValue(`a=1; ${NAME}=tok%3D; b=2`, NAME)).toBe('tok=');
    expect(cookieValue(`a=1;${NAME}=tok;b=2`, NAME)).toBe('tok');
    expect(cookieValue(`flag; ${NAME}=tok`, NAME)).toBe('tok');
    expect(cookieValue(`${NAME}="quoted"`, NAME)).toBe('quoted');
  });

  it('is undefined without the cookie, or with an empty one', () => {
    expect(cookieValue(undefined, NAME)).toBeUndefined();
    expect(cookieValue('', NAME)).toBeUndefined();
    expect(cookieValue('a=1', NAME)).toBeUndefined();
    expect(cookieValue(`x${NAME}=tok; ${NAME}x=tok`, NAME)).toBeUndefined();
    expect(cookieValue(`${NAME}=`, NAME)).toBeUndefined();
  });

  it('takes the first cookie of the name; a badly encoded one is no cookie, and no later one stands in', () => {
    expect(cookieValue(`${NAME}=first; ${NAME}=second`, NAME)).toBe('first');
    expect(cookieValue(`${NAME}=%E0%A4%A; a=1`, NAME)).toBeUndefined();
    expect(cookieValue(`${NAME}=%E0%A4%A; ${NAME}=planted`, NAME)).toBeUndefined();
  });

  it('reads no inherited property of an object as a cookie', () => {
    expect(cookieValue('a=1', 'constructor')).toBeUndefined();
    expect(cookieValue('a=1', '__proto__')).toBeUndefined();
  });
});
