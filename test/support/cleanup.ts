/** Set up in every test file (vitest.config.ts): its temporary folders go when its tests end. */
import { afterAll } from 'vitest';
import { removeTempDirs, runFileEndClosers } from './temp.js';

// Registered before the file's own hooks, so it runs after them: servers, clusters and processes are stopped by
// then, and nothing writes into a folder while it is removed. What outlived them (a browser whose launch outlasted
// a timed-out hook) is stopped first.
afterAll(async () => {
  await runFileEndClosers();
  removeTempDirs();
});
