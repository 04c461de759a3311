import { defineConfig } from 'vitest/config';

// The chaos campaigns (issue 7): CHAOS_SCALE=full for the documented run, small by default (CI).
// One file at a time: each drives a sandbox and the real binary, and the machine has two cores.
export default defineConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    include: ['test/chaos/**/*.test.ts'],
    testTimeout: 1_800_000,
    hookTimeout: 60_000,
    maxWorkers: 1,
    fileParallelism: false,
  },
});
