/**
 * Request ids made by the server, per process: the request path needs them for answers written before Fastify
 * sees a request (src/http/early-errors.ts), the request log (src/ops/request-log.ts) for every other.
 */
import { randomBytes } from 'node:crypto';

/** Per process, so that ids made by several serving processes (and restarts) do not collide. */
const ID_PREFIX = randomBytes(4).toString('hex');
let made = 0;

export function newRequestId(): string {
  return `${ID_PREFIX}-${(++made).toString(36)}`;
}
