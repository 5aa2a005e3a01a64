/** Set up in every test file (vitest.config.ts): its temporary folders go when its tests end. */
import { appendFileSync } from 'node:fs';
import { afterAll, beforeAll } from 'vitest';
import { removeTempDirs, runFileEndClosers } from './temp.js';

// Where CI asks for it (.ci/run), each test file's start and end is noted, so that a test process that dies
// without a report (a fatal V8 error kills it before the runner hears of it) can be named afterwards.
const startLog = process.env.QUARRY_TEST_START_LOG;
const note = (what: string) => {
  if (startLog) appendFileSync(startLog, `${new Date().toISOString()} ${process.pid} ${what}\n`);
};
beforeAll((suite) => note(`start ${(suite as { filepath?: string }).filepath ?? suite.name}`));

// Registered before the file's own hooks, so it runs after them: servers, clusters and processes are stopped by
// then, and nothing writes into a folder while it is removed. What outlived them (a browser whose launch outlasted
// a timed-out hook) is stopped first.
afterAll(async () => {
  note('end');
  await runFileEndClosers();
  removeTempDirs();
});
