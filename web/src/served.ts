/**
 * Where the explorer is served, worked out in the browser: a source may be served at the host's root, under a
 * proxy's path (`/quarry/`) or at its own path (`/<name>/`), and the same built page serves them all. The
 * server's settings (the page's `quarry-config`) are used where they agree with the address the page was opened
 * at; otherwise the address decides, so that a page served under another path still finds its API and routes.
 */

/** The app's own routes (the server's UI_ROUTES): what follows the root in any address of the app. */
const ROUTE = /(\/(nodes|groups|computers)(\/[^/]+)?|\/users|\/search)?\/?$/;

export interface ServedConfig {
  /** The API's path (or URL), e.g. `/api/v4`. */
  api?: string;
  /** The path the app is published under, e.g. `/quarry`; `''` at the host's root. */
  root?: string;
  /** The names of the sources served, the default first. */
  sources?: string[];
  /** Where the index of the sources served is (`GET /sources/`), when the server says. */
  index?: string;
}

export interface Served {
  root: string;
  /** The server's own root (where its portal page and search are): `root`, or its parent under a source's path. */
  serverRoot: string;
  api: string;
  /** Where to ask for the index of sources, in order (the first that answers is it). */
  index: string[];
  /** The API's documentation page (`/docs` of the server, under its published path). */
  docs: string;
}

/** The root an address of the app implies: the path without its route (`/mc3d/nodes/x` → `/mc3d`). */
export function rootOf(pathname: string): string {
  return pathname.replace(ROUTE, '').replace(/\/+$/, '');
}

export function servedAt(pathname: string, config: ServedConfig): Served {
  const configured = config.root?.replace(/\/+$/, '');
  const implied = rootOf(pathname);
  const root = configured !== undefined && configured === implied ? configured : implied;
  // The API beside the app: the server's path for it, moved under the root the address implies.
  let api = config.api ?? '/api/v4';
  if (!/^[a-z]+:/i.test(api)) {
    const below =
      configured !== undefined && api.startsWith(`${configured}/`) ? api.slice(configured.length) : api;
    api = `${root}${below}`;
  }
  const index =
    config.index !== undefined
      ? [config.index]
      : root === ''
        ? ['/sources/']
        : [`${root}/sources/`, `${root.replace(/\/[^/]*$/, '')}/sources/`];
  // The documentation is the server's, beside its first source: under the published path, not a source's.
  const docs = `${configured !== undefined && root.startsWith(configured) ? configured : ''}/docs`;
  return { root, serverRoot: configured ?? '', api, index, docs };
}
