/** Opening a source of the catalog with the server's settings, each source's own time limit where it has one. */
import { existsSync } from 'node:fs';
import { openArchive } from '../storage/index.js';
import { openPostgresUrl, openProfile, openSqliteDos, type ProfileOptions } from '../storage/profiles.js';
import type { StorageBackend } from '../storage/types.js';
import type { Opener } from './catalog.js';
import { isRemoteArchive } from './remote.js';
import type { PortalSpec } from './spec.js';

export interface OpenSettings extends ProfileOptions {
  /** How long a first request waits for another process's extraction of the same archive (default 10 s). */
  extractWaitMs?: number;
  cacheDir: string;
  /** Most sessions of a PostgreSQL source's pool. */
  pgPool?: number;
  /** How often, at most, an archive at a URL asks its server whether the file was replaced (default 10 s). */
  revalidateMs?: number;
}

/** How long a first request waits while another process extracts the same archive. */
const EXTRACT_WAIT_MS = 10_000;

export function sourceOpener(settings: OpenSettings): Opener<PortalSpec> {
  return async (spec: PortalSpec): Promise<StorageBackend> => {
    const own = {
      ...settings,
      ...(spec.queryTimeout === undefined ? {} : { queryTimeoutMs: spec.queryTimeout * 1000 }),
    };
    const probe =
      spec.kind === 'sqlite-profile'
        ? `${spec.path}/database.sqlite`
        : isRemoteArchive(spec.path)
          ? undefined
          : spec.path;
    if (probe !== undefined && !existsSync(probe)) {
      throw Object.assign(
        new Error(
          `the source "${spec.name}" is no longer served (${probe} was removed); GET /sources/ lists the sources served`,
        ),
        { status: 404 },
      );
    }
    let backend: StorageBackend;
    if (spec.url !== undefined) {
      backend = await openPostgresUrl(spec.url, spec.repository, {
        ...own,
        workers: settings.pgPool,
        replicas: spec.replicas,
        name: spec.name,
      });
    } else if (spec.profile !== undefined) {
      backend = await openProfile(spec.profile, { ...own, workers: settings.pgPool });
    } else if (spec.kind === 'sqlite-profile') {
      backend = await openSqliteDos(spec.path!, { ...own, name: spec.name });
    } else {
      // A request does not wait long for another process's extraction: it is told to come back.
      backend = await openArchive(spec.path!, {
        extractWaitMs: EXTRACT_WAIT_MS,
        ...own,
        sourceName: spec.name,
      });
    }
    // Served under the catalog's name, whatever the storage calls itself.
    return backend.name === spec.name ? backend : renamed(backend, spec.name);
  };
}

function renamed(backend: StorageBackend, name: string): StorageBackend {
  return new Proxy(backend, { get: (target, key) => (key === 'name' ? name : Reflect.get(target, key)) });
}
