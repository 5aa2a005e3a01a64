/**
 * Global set-up of the suite (vitest.config.ts): says once, one line each, which outside programs are missing
 * and so which tests are skipped, and how to install them; and whether aiida-core's test archives are here. CI installs them and sets QUARRY_REQUIRE_* so that
 * their tests fail there instead.
 */
import { existsSync } from 'node:fs';
import { postgresBin } from '../../src/bench/postgres-cluster.js';
import { nginxInstalled } from '../../src/bench/nginx.js';
import { sharedSkipLine } from '../conformance/corpus.js';
import { CHROMIUM } from './chromium.js';

export default function setup(): void {
  const missing: [string, string][] = [];
  if (postgresBin() === undefined) missing.push(['PostgreSQL', 'the tests of PostgreSQL profiles']);
  if (!nginxInstalled())
    missing.push(['nginx', 'the tests of two instances behind nginx and of archives at URLs']);
  if (!existsSync(CHROMIUM)) missing.push(['Chromium', "the explorer's browser tests"]);
  for (const [program, tests] of missing)
    console.log(`${program} is not installed: ${tests} are skipped (npm run setup:system installs it)`);
  const shared = sharedSkipLine();
  if (shared !== undefined) console.log(shared);
}
