/** Where Quarry keeps what it derives from the data (extracted databases, the demo archive). */
import { homedir } from 'node:os';
import { join } from 'node:path';

export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.QUARRY_CACHE_DIR) return env.QUARRY_CACHE_DIR;
  const base = env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(base, 'quarry');
}
