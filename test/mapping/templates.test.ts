import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileGlob, exactId, normaliseRuleId } from '../../src/mapping/match.js';
import { parseShopifyOrderJson, propertiesMap, shopDomainOf, unwrapOrder } from '../../src/mapping/shopify-order.js';
import { compileTemplate, liquid, renderTemplate } from '../../src/mapping/templates.js';
import { trackingFor } from '../../src/mapping/tracking.js';
import { exampleMapping } from './helpers.js';

const scope = {
  order: {
    name: '#1042',
    created_at: '2026-11-20T23:30:00-05:00',
    tags: 'vip, repeat',
    note: null,
    shipping_address: null,
    line_items: [{ sku: 'A' }, { sku: 'B' }],
  },
  line: { sku: 'BOOK-A5', title: 'Grüße aus Köln', properties: { _cover_pdf: 'https://x.example/c.pdf', 'Gift note': 'Hi' } },
  shop: { domain: 'acme.myshopify.com', handle: 'acme' },
};
const render = (source: string) => renderTemplate(compileTemplate(source), scope);

describe('templates', () => {
  it.each([
    ["{{ order.name | remove: '#' }}", '1042'],
    ["{{ line.sku | replace: 'A5', 'A4' }}", 'BOOK-A4'],
    ["{{ order.tags | split: ', ' | last | upcase }}", 'REPEAT'],
    ["{{ line.properties.missing | default: 'none' }}", 'none'],
    ["{{ order.note | default: 'no note' }}", 'no note'],
    ["{{ order.created_at | date: '%Y-%m-%d %H:%M' }}", '2026-11-20 23:30'],
    ['{{ line.title | handleize }}', 'grusse-aus-koln'],
    ["{{ line.properties['Gift note'] }}!", 'Hi!'],
    ['{{ order.line_items.size }} lines, first {{ order.line_items.first.sku }}', '2 lines, first A'],
    ['{% if line.properties.engraving %}E{% else %}plain{% endif %}', 'plain'],
    ['{{ order.shipping_address.name }}', ''],
    ['https://f.example/{{ shop.handle }}/{{ line.sku }}.pdf', 'https://f.example/acme/BOOK-A5.pdf'],
  ])('%s → %s', (source, expected) => {
    expect(render(source)).toEqual({ ok: true, value: expected });
  });

  it('renders simple templates on the fast path, with exactly the engine\'s results', () => {
    const values: unknown[] = ['BOOK-A5', '', ' spaced ', '#1042', 0, 42, 1.5, null, false, true, undefined, ['a'], { a: 1 }];
    const templates = [
      'x {{ v.x }} y',
      "{{ v['x'] }}",
      '{{v.x}}',
      '{{ v.x.deeper }}',
      "{{ v.x | default: 'fallback' }}",
      '{{ v.x | default: 7 }}',
      "{{ v.x | remove: '#' | prepend: 'N-' | append: \"-Z\" }}",
      "{{ v.x | replace: 'A5', 'A4' | upcase }}",
      '{{ v.x | downcase | strip }}',
      "{{ v.x | upcase | default: 'late default' }}",
    ];
    for (const source of templates) {
      const t = compileTemplate(source);
      expect([source, t.kind]).toEqual([source, source.includes('late default') ? 'liquid' : 'segments']);
      for (const x of values) {
        const s = { v: x === undefined ? {} : { x } };
        let engine: { ok: boolean; value?: string };
        try {
          engine = { ok: true, value: liquid.parseAndRenderSync(source, s) as string };
        } catch {
          engine = { ok: false };
        }
        const fast = renderTemplate(t, s);
        expect([source, x, fast.ok, fast.ok ? fast.value : undefined]).toEqual([source, x, engine.ok, engine.value]);
      }
    }
    expect(compileTemplate("{{ v | date: '%Y' }}").kind).toBe('liquid');
    expect(compileTemplate('plain text').kind).toBe('const');
  });

  it('reports an undefined variable on both paths, with the default way out', () => {
    const expected = {
      ok: false,
      undefinedVariable: 'line.properties._text_pdf',
      message: `line.properties._text_pdf is not defined for this order (write "{{ line.properties._text_pdf | default: '...' }}" if it is optional)`,
    };
    expect(render('{{ line.properties._text_pdf }}')).toEqual(expected);
    expect(render('{{ line.properties._text_pdf | upcase }}')).toEqual(expected);
  });

  it('writes the undefined variable as Liquid that loads: names with spaces as [\'…\'], on both paths (public bodies review, D2)', () => {
    const name = "line.properties['Custom Engraving Front']";
    const expected = {
      ok: false,
      undefinedVariable: name,
      message: `${name} is not defined for this order (write "{{ ${name} | default: '...' }}" if it is optional)`,
    };
    expect(compileTemplate(`{{ ${name} }}`).kind).toBe('segments');
    expect(render(`{{ ${name} }}`)).toEqual(expected);
    expect(compileTemplate(`{{ ${name} | upcase | handleize }}`).kind).toBe('liquid');
    expect(render(`{{ ${name} | upcase | handleize }}`)).toEqual(expected);
    // The suggestion itself is a template that compiles and renders (a comma no longer cuts the name short either).
    expect(render(`{{ ${name} | default: '...' }}`)).toEqual({ ok: true, value: '...' });
    expect(render("{{ line.properties['a, b'] | handleize }}")).toMatchObject({ undefinedVariable: "line.properties['a, b']" });
    expect(render('{{ line.properties["it\'s"] | handleize }}')).toMatchObject({ undefinedVariable: 'line.properties["it\'s"]' });
    expect(render('{{ order.line_items[0].nope | handleize }}')).toMatchObject({ undefinedVariable: 'order.line_items[0].nope' });
    // An empty part is named the same way.
    expect(render("a {{ line.properties['Gift note'] | remove: 'Hi' }} b")).toEqual({ ok: true, value: 'a  b', emptyPart: "line.properties['Gift note']" });
  });

  it('gives a hash its number of keys with size, as Shopify does; text and arrays as before (public bodies review, D3)', () => {
    expect(render('{{ line.properties | size }}')).toEqual({ ok: true, value: '2' });
    expect(render('{% assign n = line.properties | size %}{% if n > 0 %}has {{ n }}{% endif %}')).toEqual({ ok: true, value: 'has 2' });
    expect(render('{{ order | size }}')).toEqual({ ok: true, value: String(Object.keys(scope.order).length) });
    expect(renderTemplate(compileTemplate('{{ v | size }}'), { v: { length: 9, a: 1 } })).toEqual({ ok: true, value: '2' });
    expect(render('{{ line.sku | size }} {{ order.line_items | size }} {{ order.note | size }}')).toEqual({ ok: true, value: '7 2 0' });
    // Ours like the built-in ones: every filter refuses to start past the render deadline.
    for (const [name, filter] of Object.entries(liquid.filters as Record<string, { name: string } | { handler: { name: string } }>)) {
      expect([name, 'handler' in filter ? filter.handler.name : filter.name]).toEqual([name, 'bounded']);
    }
  });

  it("reads default's fallback as Shopify does: a missing fallback is nil, not a problem (security review of public bodies)", () => {
    // "Custom Engraving" on one version of Shopify's docs order, "Custom Engraving Front" on another.
    expect(render("{{ line.properties['Gift note'] | default: line.properties.missing }}")).toEqual({ ok: true, value: 'Hi' });
    expect(render("{{ line.properties.missing | default: line.properties['Gift note'] }}")).toEqual({ ok: true, value: 'Hi' });
    expect(render('{{ line.sku | default: order.no_such_field, allow_false: true }}')).toEqual({ ok: true, value: 'BOOK-A5' });
    // Both missing: nothing to print, which the field's own checks report; a missing value elsewhere is still refused.
    expect(render('{{ line.properties.missing | default: order.no_such_field }}')).toMatchObject({ ok: true, value: '' });
    expect(render('{{ order.no_such_field | append: line.sku }}')).toMatchObject({ ok: false, undefinedVariable: 'order.no_such_field' });
  });

  it('bounds rendering: a huge loop is stopped, not run', () => {
    const started = Date.now();
    const result = render('{% for i in (1..100000000) %}xxxxxxxxxxxxxxxx{% endfor %}');
    expect(result.ok).toBe(false);
    expect(!result.ok && result.message).toMatch(/rendering is bounded/);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('throws at compile time on syntax errors and unknown filters', () => {
    expect(() => compileTemplate('{{ x')).toThrow(/not closed/);
    expect(() => compileTemplate('{{ x | nosuchfilter }}')).toThrow(/undefined filter: nosuchfilter/);
    expect(() => compileTemplate('{% if x %}')).toThrow(/not closed/);
  });
});

describe('match helpers', () => {
  it('globs: * and ? only, anchored, case-sensitive, other characters literal', () => {
    const g = compileGlob('BOOK-A?-*.v[1]');
    expect(g.test('BOOK-A5-POEMS.v[1]')).toBe(true);
    expect(g.test('BOOK-A55-POEMS.v[1]')).toBe(false);
    expect(g.test('book-A5-x.v[1]')).toBe(false);
    expect(compileGlob('*').test('')).toBe(true);
    expect(compileGlob('A.B').test('AxB')).toBe(false);
  });

  it('ids: numbers, strings and gids to exact decimal strings', () => {
    expect(normaliseRuleId(42, 'Product')).toBe('42');
    expect(normaliseRuleId(12345678901234567890n, 'Product')).toBe('12345678901234567890');
    expect(normaliseRuleId('gid://shopify/ProductVariant/9007199254740993', 'ProductVariant')).toBe('9007199254740993');
    expect(normaliseRuleId('gid://shopify/Product/1', 'ProductVariant')).toEqual({ error: expect.stringMatching(/Product gid/) });
    expect(normaliseRuleId(2 ** 60, 'Product')).toEqual({ error: expect.stringMatching(/positive whole number/) });
    expect(exactId(2 ** 60)).toBeUndefined();
    expect(exactId('1152921504606846977')).toBe('1152921504606846977');
  });
});

describe('reading Shopify bodies', () => {
  it('keeps integers above 2^53 exact and leaves strings and small numbers alone', () => {
    const text = '{"id": 1152921504606846977, "s": "9007199254740993 x", "n": 123, "f": 1.5, "neg": -9007199254740993, "e": 1e21, "a": [9007199254740992]}';
    expect(parseShopifyOrderJson(text)).toEqual({
      id: '1152921504606846977',
      s: '9007199254740993 x',
      n: 123,
      f: 1.5,
      neg: '-9007199254740993',
      e: 1e21,
      a: ['9007199254740992'],
    });
    expect(parseShopifyOrderJson('{"k": "a \\" 9007199254740993"}')).toEqual({ k: 'a " 9007199254740993' });
  });

  it('unwraps {"order": ...} and finds the shop domain', () => {
    expect(unwrapOrder({ order: { line_items: [] } })).toEqual({ line_items: [] });
    expect(unwrapOrder({ line_items: [], order: 1 })).toEqual({ line_items: [], order: 1 });
    expect(shopDomainOf({ order_status_url: 'https://Acme.myshopify.com/1/orders/x' })).toBe('acme.myshopify.com');
    expect(shopDomainOf({ order_status_url: 'https://shop.example.com/1/orders/x' })).toBeUndefined();
  });

  it('turns properties into a name → value map, hidden ones included', () => {
    expect(
      propertiesMap([
        { name: 'Size', value: 'A5' },
        { name: '_file', value: 'https://x' },
        { name: 'Copies', value: 3 },
        { key: 'gql', value: 'y' },
      ]),
    ).toEqual({ Size: 'A5', _file: 'https://x', Copies: '3', gql: 'y' });
    expect(propertiesMap({ a: 'b' })).toEqual({ a: 'b' });
    const hostile = propertiesMap([{ name: '__proto__', value: 'x' }]);
    expect(Object.getPrototypeOf(hostile)).toBe(Object.prototype);
    expect(Object.hasOwn(hostile, '__proto__') && hostile['__proto__']).toBe('x');
    expect(propertiesMap(null)).toEqual({});
  });
});

describe('tracking table', () => {
  it('gives the company and the rendered URL for a carrier code', () => {
    const m = exampleMapping();
    expect(trackingFor(m, 'royalmail', 'AB 123')).toEqual({
      company: 'Royal Mail',
      url: 'https://www.royalmail.com/track-your-item#/tracking-results/AB%20123',
    });
    expect(trackingFor(m, 'DPD', '99')).toEqual({ company: 'DPD', url: 'https://track.dpd.co.uk/parcels/99' });
    expect(trackingFor(m, 'ups', '1Z')).toEqual({ company: 'ups' });
  });

  it('gives no URL when what renders is not a web address (a table checked before the rule, loaded as is)', () => {
    const m = exampleMapping();
    const tracking = { evil: { company: 'Evil', url: compileTemplate('javascript:alert(1)//{{ trackingNumber }}') } };
    expect(trackingFor({ ...m, config: { ...m.config, tracking } } as typeof m, 'evil', '1')).toEqual({ company: 'Evil' });
  });
});

describe('parseShopifyOrderJson, property-based', () => {
  it('equals JSON.parse except that integers beyond 2^53 keep their exact digits', () => {
    const big = fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n });
    const leaf = fc.oneof(big, fc.string(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null));
    const value = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: 'small' }, leaf, fc.array(tie('node'), { maxLength: 4 }), fc.dictionary(fc.string(), tie('node'), { maxKeys: 4 })),
    })).node;
    fc.assert(
      fc.property(value, (v) => {
        const text = JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? `__big__${x}` : x)).replace(/"__big__(-?\d+)"/g, '$1');
        const expected = JSON.parse(
          JSON.stringify(v, (_k, x: unknown) => {
            if (typeof x === 'bigint') return Number.isSafeInteger(Number(x)) ? Number(x) : x.toString();
            // A double written as a long integer is beyond 2^53 too, and kept as its digits.
            if (typeof x === 'number' && Number.isInteger(x) && !Number.isSafeInteger(x) && !/e/.test(String(x))) return String(x);
            return x;
          }),
        ) as unknown;
        expect(parseShopifyOrderJson(text)).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });
});
