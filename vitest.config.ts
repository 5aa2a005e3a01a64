import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The package's install test needs the npm registry and minutes: `npm run test:pack` (CI runs it).
    exclude: ['test/package/**', '**/node_modules/**'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Every test file removes its temporary folders when it ends; the run fails if anything is left behind. It
    // says once which outside programs are missing (their tests are skipped).
    setupFiles: ['test/support/cleanup.ts'],
    globalSetup: ['test/support/tmp-check.ts', 'test/support/system-check.ts'],
  },
});
