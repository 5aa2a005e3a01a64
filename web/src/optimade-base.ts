/** Where the OPTIMADE API of the source the explorer reads is: served by Quarry beside its v4 API. */
import type { Api } from './api.js';

/**
 * The OPTIMADE base URL of the source the explorer shows. The server answers OPTIMADE beside its sources, not
 * under the v4 prefix: `/optimade/v1` under the path the explorer is published at (its root), and for a source
 * served by path (or chosen by `?profile=`) `/<name>/optimade/v1`.
 */
export function optimadeBase(api: Api, root: string): string {
  const path = api.profile === undefined ? root : `${root}/${encodeURIComponent(api.profile)}`;
  return new URL(`${path}/optimade/v1`, window.location.origin).href;
}

/** Is the API the one of the server that serves the explorer (so its OPTIMADE endpoint is there too)? */
export function servesOptimade(api: Api): boolean {
  return new URL(api.base).origin === window.location.origin;
}
