/**
 * Who a request comes from, for taking turns in the heavy lane (src/storage/admission.ts): the peer's address,
 * or behind a proxy the operator trusts (`--trust-proxy`) the address that proxy saw, the last one it added to
 * X-Forwarded-For. Entries before it were written by the client itself and prove nothing.
 */
import type { FastifyRequest } from 'fastify';

export function clientOf(request: FastifyRequest, trustProxy: boolean): string {
  const peer = request.raw.socket?.remoteAddress ?? '';
  if (!trustProxy) return peer;
  const forwarded = request.headers['x-forwarded-for'];
  const list = Array.isArray(forwarded) ? forwarded.join(',') : forwarded;
  if (list === undefined) return peer;
  const last = list.slice(list.lastIndexOf(',') + 1).trim();
  return last === '' ? peer : last.slice(0, 64);
}
