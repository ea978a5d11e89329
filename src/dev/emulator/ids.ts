import { createHash, randomBytes } from 'node:crypto';

/** A source of numbers in [0, 1); injectable so fault injection can be replayed exactly in tests. */
export type RandomSource = () => number;

/** mulberry32: small, fast and good enough to decide which creates fail; the same seed gives the same sequence. */
export function seededRandom(seed: number): RandomSource {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * 24-hex ids in the shape of the real service's (MongoDB ObjectId: seconds, a per-process value, a counter), so ids
 * sort by creation time and never repeat within a process.
 */
export function createIdGenerator(now: () => Date): () => string {
  const processPart = randomBytes(5).toString('hex');
  let counter = randomBytes(3).readUIntBE(0, 3);
  return () => {
    counter = (counter + 1) & 0xffffff;
    const seconds = Math.floor(now().getTime() / 1000) >>> 0;
    return seconds.toString(16).padStart(8, '0') + processPart + counter.toString(16).padStart(6, '0');
  };
}

/** Deterministic per order and shipment, so tests and demos can predict it: `EM` + 9 digits + `GB`. */
export function trackingNumberFor(orderId: string, shipmentIndex: number): string {
  const digest = createHash('sha1').update(`${orderId}:${shipmentIndex}`).digest();
  const digits = (digest.readUInt32BE(0) % 1_000_000_000).toString().padStart(9, '0');
  return `EM${digits}GB`;
}
