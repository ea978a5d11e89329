/**
 * bench:flash-sale's figures: each round's measurements (RoundResult), their sum per pipeline, and the comparison table
 * print-bridge against the bare pipeline. Kept apart from the script that starts the processes and sends the orders.
 */
import { availableParallelism } from 'node:os';

export type PipelineName = 'print-bridge' | 'bare';

export interface RoundResult {
  pipeline: PipelineName;
  round: number;
  orders: number;
  seconds: number;
  acceptSeconds: number;
  refused: number;
  latencies: number[];
  cpu: Record<string, number>;
  /** CPU ms of the processes both pipelines share (servers, the emulator, the Admin API stand-in) during the round. */
  shared: Record<string, number>;
  xacts: number;
  redisCommands: number;
  redisBytesIn: number;
  /** Shopify Admin API requests the stand-in answered during the round, by root fields (print-bridge's only). */
  shopify: { total: number; byOperation: Record<string, number> };
  acknowledged: number;
  duplicates: number;
  losses: number;
}

export const pct = (sorted: number[], q: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! : NaN);
export const secs = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
export const ratioOf = (a: number, b: number) => (b ? (a / b).toFixed(2) : '–');

export type PipelineSummary = ReturnType<typeof summarise>;

/** One pipeline's rounds added up: orders/s over the rounds' time, latencies pooled, the rest per order. */
export function summarise(results: RoundResult[], name: PipelineName) {
  const rs = results.filter((r) => r.pipeline === name);
  const orders = rs.reduce((n, r) => n + r.orders, 0);
  const latencies = rs.flatMap((r) => r.latencies).sort((a, b) => a - b);
  const cpu: Record<string, number> = {};
  for (const r of rs) for (const [role, ms] of Object.entries(r.cpu)) cpu[role] = (cpu[role] ?? 0) + ms;
  return {
    orders,
    perSecond: rs.reduce((n, r) => n + r.acknowledged, 0) / rs.reduce((s, r) => s + r.seconds, 0),
    p50: pct(latencies, 0.5),
    p99: pct(latencies, 0.99),
    cpu: Object.fromEntries(Object.entries(cpu).map(([role, ms]) => [role, ms / orders])),
    cpuTotal: Object.values(cpu).reduce((a, b) => a + b, 0) / orders,
    shared: rs.reduce<Record<string, number>>((all, r) => {
      for (const [k, ms] of Object.entries(r.shared)) all[k] = (all[k] ?? 0) + ms / orders;
      return all;
    }, {}),
    xacts: rs.reduce((n, r) => n + r.xacts, 0) / orders,
    redis: rs.reduce((n, r) => n + r.redisCommands, 0) / orders,
    redisKb: rs.reduce((n, r) => n + r.redisBytesIn, 0) / orders / 1024,
    shopify: rs.reduce((n, r) => n + r.shopify.total, 0) / orders,
    shopifyByOperation: rs.reduce<Record<string, number>>((all, r) => {
      for (const [op, n] of Object.entries(r.shopify.byOperation)) {
        // A document of several orders' status writes (StatusWriteBatches) is named by what it is, not by its fields.
        const name = (op.match(/tagsAdd/g)?.length ?? 0) > 1 || (op.match(/tagsRemove/g)?.length ?? 0) > 1 ? "mutation several orders' status" : op;
        all[name] = (all[name] ?? 0) + n / orders;
      }
      return all;
    }, {}),
    losses: rs.reduce((n, r) => n + r.losses, 0),
    duplicates: rs.reduce((n, r) => n + r.duplicates, 0),
  };
}

/** The table: a row a measure, print-bridge and bare side by side with their ratio. */
export function printComparison(pb: PipelineSummary, bare: PipelineSummary): void {
  const row = (label: string, a: string, b: string, ratio = '') => console.log(`  ${label.padEnd(44)} ${a.padStart(14)} ${b.padStart(14)} ${ratio.padStart(8)}`);
  console.log('');
  row('', 'print-bridge', 'bare', 'pb/bare');
  row('orders/s, webhook sent → print order acknowledged', pb.perSecond.toFixed(0), bare.perSecond.toFixed(0), ratioOf(pb.perSecond, bare.perSecond));
  row('webhook accepted → acknowledged, p50', secs(pb.p50), secs(bare.p50), ratioOf(pb.p50, bare.p50));
  row('webhook accepted → acknowledged, p99', secs(pb.p99), secs(bare.p99), ratioOf(pb.p99, bare.p99));
  for (const role of new Set([...Object.keys(pb.cpu), ...Object.keys(bare.cpu)])) {
    row(`CPU ms per order, ${role} process`, pb.cpu[role]?.toFixed(2) ?? '–', bare.cpu[role]?.toFixed(2) ?? '–', pb.cpu[role] !== undefined && bare.cpu[role] !== undefined ? ratioOf(pb.cpu[role], bare.cpu[role]) : '');
  }
  row('CPU ms per order, all its processes', pb.cpuTotal.toFixed(2), bare.cpuTotal.toFixed(2), ratioOf(pb.cpuTotal, bare.cpuTotal));
  for (const service of Object.keys(pb.shared)) {
    row(`CPU ms per order, ${service}`, pb.shared[service]!.toFixed(2), bare.shared[service]?.toFixed(2) ?? '–', ratioOf(pb.shared[service]!, bare.shared[service] ?? 0));
  }
  // What the machine's cores allow at this CPU an order, the pipeline's processes and everything they share counted
  // (the load generator, this process, is not): near the orders/s above, the run is bound by the machine's CPU.
  const everything = (x: typeof pb) => x.cpuTotal + Object.values(x.shared).reduce((a, b) => a + b, 0);
  const cores = availableParallelism();
  row(`CPU ms per order, everything above`, everything(pb).toFixed(2), everything(bare).toFixed(2), ratioOf(everything(pb), everything(bare)));
  row(`orders/s ${cores} cores allow at that CPU an order`, ((cores * 1000) / everything(pb)).toFixed(0), ((cores * 1000) / everything(bare)).toFixed(0), ratioOf(everything(bare), everything(pb)));
  row('PostgreSQL transactions per order', pb.xacts.toFixed(1), bare.xacts.toFixed(1), ratioOf(pb.xacts, bare.xacts));
  row('Redis commands per order', pb.redis.toFixed(1), bare.redis.toFixed(1), ratioOf(pb.redis, bare.redis));
  row('Redis KB received per order', pb.redisKb.toFixed(1), bare.redisKb.toFixed(1), ratioOf(pb.redisKb, bare.redisKb));
  row('Shopify Admin API requests per order', pb.shopify.toFixed(2), '–');
  console.log(`    print-bridge's, by root fields: ${Object.entries(pb.shopifyByOperation).sort((a, b) => b[1] - a[1]).map(([op, n]) => `${op} ${n.toFixed(2)}`).join(', ')}`);
  row('lost / duplicated at the printer', `${pb.losses} / ${pb.duplicates}`, `${bare.losses} / ${bare.duplicates}`);
}
