import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    environment: 'node',
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Files run in parallel processes; each uses its own Redis key prefix, database schema and ports. Two at a time on
    // two cores (vitest's default is one less than the cores): most of a file's time is waiting on Redis, PostgreSQL,
    // child processes and the stand-ins, and the suite takes about 4 minutes instead of 7.
    pool: 'forks',
    maxWorkers: 2,
  },
});
