import { defineConfig } from 'vitest/config';

/** `npm run test:pack`: the package packed, installed into an empty folder and served (test/package/). */
export default defineConfig({
  test: {
    include: ['test/package/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 900_000,
    pool: 'forks',
    setupFiles: ['test/support/cleanup.ts'],
    globalSetup: ['test/support/tmp-check.ts'],
  },
});
