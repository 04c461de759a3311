import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    include: ['test/**/*.test.ts'],
    exclude: ['test/chaos/**', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Integration tests spawn the real binary; two cores, so keep parallelism modest.
    maxWorkers: 2,
  },
});
