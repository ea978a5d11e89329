import { describe, expect, it } from 'vitest';
import { parseJsonLossless, quoteBigIntegers } from './json.js';

describe('parseJsonLossless', () => {
  it('keeps ids above 2^53 exact as strings and leaves safe numbers alone', () => {
    const text = '{"id":5512345678901234567,"n":[9007199254740993,-9007199254740993],"small":450789469,"price":"12.00","x":1.5e3,"max":9007199254740991}';
    expect(parseJsonLossless(text)).toEqual({
      id: '5512345678901234567',
      n: ['9007199254740993', '-9007199254740993'],
      small: 450789469,
      price: '12.00',
      x: 1500,
      max: 9007199254740991,
    });
  });

  it('never touches digits inside strings, escapes included', () => {
    const text = '{"note":"call 12345678901234567890, \\"ref\\": 99999999999999999999","id":12345678901234567890}';
    expect(parseJsonLossless(text)).toEqual({
      note: 'call 12345678901234567890, "ref": 99999999999999999999',
      id: '12345678901234567890',
    });
  });

  it('never reads the digits of a fraction or an exponent as an integer', () => {
    const text = '{"a":-0.00010492602205755642,"b":1.12345678901234567890e-5,"c":12345678901234567890.5}';
    expect(parseJsonLossless(text)).toEqual(JSON.parse(text));
  });

  it('returns the text unchanged when there is nothing to quote', () => {
    const text = '{"a":[1,2,3],"b":"x"}';
    expect(quoteBigIntegers(text)).toBe(text);
  });
});
