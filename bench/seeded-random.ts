/** Seeded randomness for the benches' generated data: a seed gives the same data on every machine. */

// One mulberry32 in the project: the emulator's.
export { type RandomSource as Rng, seededRandom as seededRng } from '../src/dev/emulator/ids.js';
import type { RandomSource as Rng } from '../src/dev/emulator/ids.js';

export const pick = <T>(rng: Rng, items: readonly T[]): T => items[Math.floor(rng() * items.length)]!;
export const int = (rng: Rng, min: number, max: number): number => min + Math.floor(rng() * (max - min + 1));
export const hex = (rng: Rng, n: number): string => Array.from({ length: n }, () => Math.floor(rng() * 16).toString(16)).join('');
export const uuid = (rng: Rng): string => `${hex(rng, 8)}-${hex(rng, 4)}-4${hex(rng, 3)}-a${hex(rng, 3)}-${hex(rng, 12)}`;
