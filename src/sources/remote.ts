/** Archives at http(s) URLs as sources: named by their file name, opened (and checked) by the storage. */
import { isRemote } from '../storage/archive/remote.js';
import { shownUrl } from '../storage/archive/remote-errors.js';
import { nameFrom } from './names.js';
import type { PortalSpec } from './spec.js';

export function isRemoteArchive(path: string | undefined): boolean {
  return path !== undefined && isRemote(path);
}

/**
 * The spec of an archive at `url`. Its version is its URL: whether the server's file was replaced is the open
 * storage's to find out (src/storage/archive/remote.ts), which has the source opened anew.
 */
export function remoteSpec(url: string, name?: string, queryTimeout?: number): PortalSpec {
  return {
    name: name ?? nameFrom(url),
    kind: 'archive',
    origin: shownUrl(url),
    path: url,
    version: `remote:${url}:${queryTimeout ?? ''}`,
    ...(queryTimeout === undefined ? {} : { queryTimeout }),
  };
}
