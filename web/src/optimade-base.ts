/** Where the OPTIMADE API of the source the explorer reads is: served by Quarry beside its v4 API. */
import type { Api } from './api.js';

/** The OPTIMADE base URL of the source the API serves: `/api/v4` → `/optimade/v1` (a path's source keeps it). */
export function optimadeBase(api: Api): string {
  const root = api.base.replace(/\/api\/v4$/, '');
  return api.profile === undefined
    ? `${root}/optimade/v1`
    : `${root}/${encodeURIComponent(api.profile)}/optimade/v1`;
}

/** Is the API the one of the server that serves the explorer (so its OPTIMADE endpoint is there too)? */
export function servesOptimade(api: Api): boolean {
  return new URL(api.base).origin === window.location.origin;
}
