/**
 * The size distribution of generated bodies (Shopify orders, print documents), printed by every bench so that a figure
 * always says what data it was measured on.
 */

/** A body and the count of lines it holds (an order's line items, a print document's items). */
export interface SizedBody {
  body: string;
  lineItems: number;
}

export interface SizeSummary {
  count: number;
  minKb: number;
  p10Kb: number;
  medianKb: number;
  p90Kb: number;
  maxKb: number;
  lines: string;
}

/** Sizes of any bodies with their count of lines (orders and their line items, print documents and their items). */
export function summariseSizes(bodies: readonly SizedBody[]): SizeSummary {
  const sizes = bodies.map((b) => Buffer.byteLength(b.body)).sort((a, b) => a - b);
  const at = (q: number) => sizes[Math.min(sizes.length - 1, Math.floor(q * sizes.length))]! / 1024;
  const lines = new Map<number, number>();
  for (const b of bodies) lines.set(b.lineItems, (lines.get(b.lineItems) ?? 0) + 1);
  return {
    count: sizes.length,
    minKb: sizes[0]! / 1024,
    p10Kb: at(0.1),
    medianKb: at(0.5),
    p90Kb: at(0.9),
    maxKb: sizes[sizes.length - 1]! / 1024,
    lines: [...lines.entries()].sort((a, b) => a[0] - b[0]).map(([n, c]) => `${n}:${c}`).join(' '),
  };
}

export const formatKb = (v: number): string => `${v.toFixed(1)} KB`;

export function describeSizes(s: SizeSummary, nouns: { bodies: string; lines: string } = { bodies: 'bodies', lines: 'line items (count:orders)' }): string {
  const kb = formatKb;
  return `${s.count} ${nouns.bodies}: min ${kb(s.minKb)}, p10 ${kb(s.p10Kb)}, median ${kb(s.medianKb)}, p90 ${kb(s.p90Kb)}, max ${kb(s.maxKb)}; ${nouns.lines} ${s.lines}`;
}
