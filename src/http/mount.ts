/**
 * Sources by path: `/<name>/api/v4/...` is served as `/api/v4/...` of the source `<name>`, as if that source's
 * server were mounted at `/<name>` behind a proxy (WSGI's SCRIPT_NAME, how Materials Cloud serves each
 * dataset). The path is rewritten before routing, so every route answers under every source unchanged; the
 * mount goes into the base of the URLs answers name (`url`, `url_root`, `Link`), and `path` stays the API's.
 */
import type { IncomingMessage } from 'node:http';

export interface Mount {
  /** The source the path names. */
  name: string;
  /** `/<name>`: what the URLs of answers have between the server's base and the API path. */
  prefix: string;
}

const mounts = new WeakMap<IncomingMessage, Mount>();
/** Requests whose first segment names a source that was served and is no longer. */
const gone = new WeakMap<IncomingMessage, string>();

/** What the rewrite needs to know of the catalog. */
export interface MountTable {
  has(name: string): boolean;
  wasRemoved(name: string): boolean;
}

/**
 * Fastify's `rewriteUrl`: strip a source's name from the front of the path and remember it for the request.
 * A first segment that is a route of the server itself (`reserved`) is never a source's.
 */
export function sourceRewriter(table: MountTable, reserved: ReadonlySet<string>) {
  return (req: IncomingMessage): string => {
    const url = req.url ?? '/';
    if (url.charCodeAt(0) !== 47 /* / */) return url;
    let end = 1;
    while (end < url.length) {
      const c = url.charCodeAt(end);
      if (c === 47 || c === 63 /* ? */) break;
      end++;
    }
    if (end === 1) return url;
    const segment = url.slice(1, end);
    if (reserved.has(segment.toLowerCase())) return url;
    if (table.has(segment)) {
      mounts.set(req, { name: segment, prefix: `/${segment}` });
      const rest = url.slice(end);
      return rest === '' || rest.charCodeAt(0) === 63 ? `/${rest}` : rest;
    }
    if (table.wasRemoved(segment)) gone.set(req, segment);
    return url;
  };
}

export function mountOf(req: IncomingMessage): Mount | undefined {
  return mounts.get(req);
}

/** The name of a removed source the request's path starts with, if it does. */
export function removedSourceOf(req: IncomingMessage): string | undefined {
  return gone.get(req);
}
