/**
 * Names of sources: the first segment of their path (`/<name>/api/v4/`). A name comes from the archive's file
 * name or the profile's name, made URL-safe, and must neither repeat another's nor shadow a route of the server.
 */
import { createHash } from 'node:crypto';
import { basename } from 'node:path';

/** First path segments the server answers itself: a source there could never be reached. */
const ALWAYS_RESERVED = [
  'api',
  'assets',
  'docs',
  'healthz',
  'readyz',
  'metrics',
  'sources',
  'optimade',
  'search',
  'export',
  // The explorer's own views (src/ops/ui.ts) at the plain root.
  'nodes',
  'groups',
  'computers',
  'users',
  // The endpoint groups of the v4 API, which are at the root when --prefix is empty.
  'calcjobs',
  'processes',
  'querybuilder',
  'server',
];

/** The first segments that are not free for a source under `prefix` (its own first segment among them). */
export function reservedNames(prefix: string): Set<string> {
  const first = prefix.split('/').filter(Boolean)[0];
  return new Set(first === undefined ? ALWAYS_RESERVED : [...ALWAYS_RESERVED, first.toLowerCase()]);
}

/** A URL path segment of unreserved characters only: nothing to escape, nothing a proxy rewrites. */
const SAFE = /^[A-Za-z0-9][A-Za-z0-9._~-]{0,99}$/;

/** Whether `name` can be a source's path segment as it is. */
export function isUrlSafe(name: string): boolean {
  return SAFE.test(name) && name !== '.' && name !== '..';
}

/**
 * The name a file or profile is served under: its base name without `.aiida`, `.zip`, `.aiida.zip`, `.tar.gz`
 * or `.tgz`, each run of characters a URL
 * would have to escape replaced by `-` (so `MC3D v2 (2024).aiida` is served at `/MC3D-v2-2024/`).
 */
export function nameFrom(fileOrProfile: string): string {
  const base = basename(remoteFileName(fileOrProfile) ?? fileOrProfile.replace(/[/\\]+$/, '')).replace(
    /\.aiida(\.zip)?$|\.tar\.gz$|\.tgz$|\.zip$/i,
    '',
  );
  const safe = base
    .replace(/[^A-Za-z0-9._~-]+/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
    .replace(/-+$/, '');
  if (safe === '') return 'source';
  return safe.length <= MAX_NAME ? safe : cutName(safe);
}

const MAX_NAME = 100;

/**
 * A name past 100 characters, cut and told apart by a hash of the whole: files whose names differ only after
 * their first 100 characters (runs named by their parameters) are served under names of their own.
 */
function cutName(safe: string): string {
  const hash = createHash('sha256').update(safe).digest('hex').slice(0, 8);
  return `${safe.slice(0, MAX_NAME - hash.length - 1).replace(/[^A-Za-z0-9]+$/, '')}-${hash}`;
}

/**
 * The file name of an archive at an http(s) URL: the last segment of its path, or, where that is no `.aiida`
 * file, a query parameter's value that is (`.../file?filename=mc3d.aiida&record_id=1`, as record stores name files).
 */
function remoteFileName(text: string): string | undefined {
  if (!/^https?:\/\//i.test(text)) return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  const segment = url.pathname.replace(/\/+$/, '').split('/').pop() ?? '';
  let last = segment;
  try {
    last = decodeURIComponent(segment);
  } catch {
    // A stray '%': the segment as it is, made URL-safe below.
  }
  if (/\.aiida$/i.test(last)) return last;
  for (const value of url.searchParams.values()) if (/\.aiida$/i.test(value)) return basename(value);
  return last === '' ? url.hostname : last;
}

/** Raised when names clash or shadow a route: a start-up error that names what to change. */
export class SourceNameError extends Error {
  override name = 'SourceNameError';
}

/** Why `name` cannot be a source's name, or undefined when it can. */
export function nameProblem(name: string, reserved: ReadonlySet<string>): string | undefined {
  if (!isUrlSafe(name)) {
    return `the source name ${shownName(name)} is not URL-safe: use letters, digits, '.', '_', '~' and '-' (up to 100, starting with a letter or digit)`;
  }
  if (reserved.has(name.toLowerCase())) {
    return `the source name "${name}" would shadow the server's own /${name}/ route; rename the file or give the source another name`;
  }
  return undefined;
}

/**
 * Check a whole list of names with where each comes from: the first problem, naming both sources of a clash.
 * Names are compared without case: `/MC3D/` and `/mc3d/` would confuse people and caches alike.
 */
export function checkNames(
  sources: readonly { name: string; origin: string }[],
  reserved: ReadonlySet<string>,
): void {
  const seen = new Map<string, string>();
  for (const { name, origin } of sources) {
    const problem = nameProblem(name, reserved);
    if (problem !== undefined) throw new SourceNameError(`${origin}: ${problem}`);
    const key = name.toLowerCase();
    const other = seen.get(key);
    if (other !== undefined) {
      throw new SourceNameError(
        `two sources are named "${name}": ${other} and ${origin}; rename one of them (or name them in a --sources file)`,
      );
    }
    seen.set(key, origin);
  }
}

/** A name shown in a message: a name of megabytes (a mistake in a sources file) is cut, not echoed whole. */
export function shownName(name: string, most = 60): string {
  return JSON.stringify(name.length > most ? `${name.slice(0, most)}…` : name);
}

/**
 * The sources a look at the folders and the sources file finds that may be served, and a line for each that
 * may not. A name, once served, stays with its source (the same origin) until that source is gone: a newcomer
 * with the same name (without case) is refused, naming both, whichever sorts first, and is served once the
 * name is free. Among newcomers the first found takes a free name.
 */
export function assignNames<S extends { name: string; origin: string }>(
  found: readonly S[],
  served: ReadonlyMap<string, string>,
  taken: readonly string[],
  reserved: ReadonlySet<string>,
): { kept: S[]; refused: string[] } {
  const present = new Set(found.map((s) => `${s.origin}\0${s.name.toLowerCase()}`));
  const holders = new Map<string, string>();
  for (const [name, origin] of served) {
    const key = name.toLowerCase();
    if (present.has(`${origin}\0${key}`)) holders.set(key, origin);
  }
  const seen = new Map(taken.map((n) => [n.toLowerCase(), `the source ${n} on the command line`]));
  const kept: S[] = [];
  const refused: string[] = [];
  for (const spec of found) {
    const problem = nameProblem(spec.name, reserved);
    if (problem !== undefined) {
      refused.push(`${spec.origin}: ${problem}; not served`);
      continue;
    }
    const key = spec.name.toLowerCase();
    const holder = holders.get(key);
    const other = seen.get(key) ?? (holder !== undefined && holder !== spec.origin ? holder : undefined);
    if (other !== undefined) {
      refused.push(
        `${spec.origin}: the name ${shownName(spec.name)} is served from ${other}; not served while that one is (rename one of them)`,
      );
      continue;
    }
    seen.set(key, spec.origin);
    kept.push(spec);
  }
  return { kept, refused };
}
