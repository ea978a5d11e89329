import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    environment: 'node',
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Files run in parallel processes; each uses its own Redis key prefix, database schema and ports. Three at a time
    // on two cores (vitest's default is one less than the cores): most of a file's time is waiting on Redis,
    // PostgreSQL, child processes and the stand-ins (the suite used 78 % of two cores with two at a time). Measured on
    // 2 cores: two at a time 235–293 s, three 214–262 s, every run green.
    pool: 'forks',
    maxWorkers: 3,
  },
});
