import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileGlob } from '../../src/mapping/match.js';

/**
 * A mapping's SKU globs run over every order's SKUs. As regular expressions, a glob of many stars backtracked once per
 * star nested in the one before: `*a*a*…*b` against a long SKU of `a`s grew with the SKU's length to the power of the
 * stars, holding a render thread up to its hard stop. Globs now match in at most pattern × value steps.
 */
describe('SKU globs', () => {
  it('match a glob of many stars against a long SKU without backtracking', () => {
    const glob = compileGlob(`${'*a'.repeat(30)}*b`);
    expect(glob.test('a'.repeat(100_000))).toBe(false);
    expect(glob.test(`${'a'.repeat(100_000)}b`)).toBe(true);
  });

  it('match exactly as the regular expression of the glob does', () => {
    const regexOf = (pattern: string) =>
      new RegExp(`^${[...pattern].map((ch) => (ch === '*' ? '[\\s\\S]*' : ch === '?' ? '[\\s\\S]' : ch.replace(/[.+^${}()|[\]\\]/g, '\\$&'))).join('')}$`, 'u');
    const text = fc.string({ unit: fc.constantFrom('a', 'b', '-', '*', '?', 'é', '😀'), maxLength: 12 });
    fc.assert(
      fc.property(text, text, (pattern, value) => {
        expect(compileGlob(pattern).test(value)).toBe(regexOf(pattern).test(value));
      }),
      { numRuns: 3000 },
    );
    expect(compileGlob('PRINT-*').test('PRINT-A5')).toBe(true);
    expect(compileGlob('MUG-??').test('MUG-1')).toBe(false);
  });
});
