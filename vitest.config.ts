import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Every test file removes its temporary folders when it ends; the run fails if anything is left behind.
    setupFiles: ['test/support/cleanup.ts'],
    globalSetup: ['test/support/tmp-check.ts'],
  },
});
