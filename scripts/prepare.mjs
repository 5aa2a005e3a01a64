/**
 * npm's `prepare`: builds dist/ after `npm install` or `npm ci` in a checkout, and before `npm pack`. Skipped
 * when `npx quarry` runs in the checkout and dist/ is built: npx installs the checkout into its own cache to run
 * its command, which runs `prepare` again, a whole build of a minute at the first call (`npm run build` rebuilds
 * after a change).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';

const built = existsSync(join(import.meta.dirname, '..', 'dist', 'cli', 'main.js'));
if (process.env.npm_command === 'exec' && built) process.exit(0);
const run = spawnSync('npm', ['run', 'build'], { stdio: 'inherit' });
process.exit(run.status ?? 1);
