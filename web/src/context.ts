/** What every view shares: the API client, the current URL and how to move to another one. */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Api } from './api.js';

export interface Explorer {
  api: Api;
  /** Where the app is published (`''`, or `/quarry` behind a proxy; `/<name>` for a source at its own path). */
  root: string;
  /** Where the server is published: `root` at the portal's root page, its parent under a source's path. */
  serverRoot: string;
  /** The current URL's query parameters. */
  params: URLSearchParams;
  /** The names of the sources served (first = default); empty when unknown (`?api=` elsewhere). */
  sources: string[];
  /** Where the server's index of sources (`GET /sources/`) may be; empty when there is none to ask. */
  index: string[];
  /** An in-app link to `path` that keeps `profile` and `api`. */
  href(path: string, params?: Record<string, string | number | undefined>): string;
  /** Go to an in-app URL (as made by `href`). */
  navigate(url: string, options?: { replace?: boolean }): void;
}

export const ExplorerContext = createContext<Explorer | undefined>(undefined);

export function useExplorer(): Explorer {
  const explorer = useContext(ExplorerContext);
  if (explorer === undefined) throw new Error('useExplorer outside of the app');
  return explorer;
}
