/**
 * A route's word that its answer's bytes are the same for every request with a given key (a kept answer): the
 * compression plugin (src/ops/compression.ts) then makes each compressed form once and keeps it. The mark lives
 * here, on the request path, so that routes say it without reaching up into the plugins that read it.
 */
import type { FastifyReply } from 'fastify';

const sharedKeys = new WeakMap<FastifyReply, string>();

/**
 * Say that this reply's bytes are the same for every request with this `key` (which must name everything they
 * are made of).
 */
export function shareCompressed(reply: FastifyReply, key: string): void {
  sharedKeys.set(reply, key);
}

/** The key a route gave this reply's bytes, if it said they are shared. */
export function sharedKeyOf(reply: FastifyReply): string | undefined {
  return sharedKeys.get(reply);
}
