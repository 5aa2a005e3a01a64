/**
 * Whole answers of GET requests and posted queries, kept as the bytes sent while the data they were read from is
 * unchanged: a repeated page, node, links or contents request, or the explorer's grid posted by every visitor,
 * costs a lookup instead of the database and the rendering (on a live profile every GET went to PostgreSQL,
 * 3-4x slower than the same data as an archive).
 *
 * An answer is kept under its entity tag (src/ops/etag.ts), which already names everything its bytes are a
 * function of: the data (an archive's identity, a live database's data version, read at most once a second),
 * the URL, the base URL and the settings (a posted query's is named the same way, with its body, and not sent).
 * So only answers the tag plugin names are kept (the API's and not OPTIMADE's, whose time stamps differ); a data
 * change gives a new tag, and answers after it are made anew. An answer is kept from its second ask on, or at its
 * first when it took long to make (see the preHandler). With the file every serving process of the machine reads,
 * no process keeps copies of its own: a process's memory stays near its idle size.
 * Their compressed forms are kept beside them, under the coding: made once by the compression plugin, then
 * sent as they are.
 *
 * Hooks on both sides of compression: `capture` (onSend, registered before it, so it sees the bytes as
 * rendered) keeps a 200 answer; `replay` (preHandler, registered after the tag plugin, so a 304 still comes
 * first) sends a kept one, and (onSend, after compression) keeps the compressed form that was sent.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../http/context.js';
import { isUntaggable } from '../http/request.js';
import { shareCompressed } from '../http/shared-bytes.js';
import { chooseCoding } from './compression.js';
import { endpointKinds, type EndpointKind } from './endpoint-kind.js';
import { memoryAnswerStore, type AnswerStore, type KeptAnswer } from './answer-store.js';
import { KeptMap } from '../util/kept-map.js';

/** Answers larger than this are made for each request (a large download is read as it is sent). */
const LARGEST_KEPT = 8 * 1024 * 1024;
/** How many answers asked once (and not kept) a process remembers, to keep them at their second ask. */
const ASKED_ONCE = 16_384;
/**
 * An answer that took this long to make is kept at its first ask: making it twice costs far more than the write
 * (about 4 µs a kB). A 10^7-node profile's links tree of its busiest node takes 23 s of PostgreSQL alone.
 */
const COSTLY_MS = 250;

/** Headers that are the request's own, or written after the kept bytes by later hooks. */
const NOT_KEPT = new Set([
  'x-request-id',
  'access-control-allow-origin',
  'content-length',
  'etag',
  'cache-control',
  'content-encoding',
  'vary',
]);

/** Lookups of kept GET answers by endpoint kind, for /metrics (all apps of the process together). */
const use = new Map<EndpointKind, { hits: number; misses: number }>();

export function keptGetUse(): ReadonlyMap<EndpointKind, { hits: number; misses: number }> {
  return use;
}

function count(kind: EndpointKind, hit: boolean) {
  let counts = use.get(kind);
  if (counts === undefined) use.set(kind, (counts = { hits: 0, misses: 0 }));
  if (hit) counts.hits++;
  else counts.misses++;
}

export interface KeptGetsOptions {
  /** Where answers are kept (default: this process's memory, 64 MiB). */
  store?: AnswerStore;
  /** Off: every answer is made for its request. */
  enabled?: boolean;
  /** With a shared store: what names this server's answers among those of others using the same store. */
  scope?: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The name its answer is kept under, when it may be kept and is not kept yet. */
    quarryKeptKey: string | undefined;
    /** Asked for the first time: when its making started (performance.now()); kept only if it took long. */
    quarryFirstAsk: number | undefined;
    /** The name its compressed answer is kept under, when it is sent compressed and not kept yet. */
    quarryCodedKey: string | undefined;
  }
}

/** Each app's answers are apart from another's in the same process (tests serve several apps at once). */
let nextScope = 0;

export interface KeptGetsPlugin {
  /** The onSend hook that keeps answers: register before compression. */
  registerCapture(app: FastifyInstance): void;
  /** The hooks that send kept answers and keep compressed forms: register after the tag plugin. */
  registerReplay(app: FastifyInstance): void;
  close(): void;
}

export function keptGets(ctx: AppContext, options: KeptGetsOptions = {}): KeptGetsPlugin {
  const store = options.store ?? memoryAnswerStore(64 * 1024 * 1024);
  const scope = store.shared ? (options.scope ?? '') : `${process.pid}.${nextScope++}`;
  const kindOf = endpointKinds(ctx.prefix);
  const enabled = options.enabled ?? true;
  /** Names of answers asked once in this process (see the preHandler). */
  const askedOnce = new KeptMap<true>(ASKED_ONCE);

  const keyOf = (request: FastifyRequest): string | undefined => {
    const pending = request.quarryCaching;
    if (pending === undefined || pending.weak) return undefined;
    if (request.method !== (pending.posted ? 'POST' : 'GET')) return undefined;
    return `${scope}\u0000${pending.tag}`;
  };

  return {
    registerCapture(app) {
      if (!enabled) return;
      app.decorateRequest('quarryKeptKey', undefined);
      app.decorateRequest('quarryFirstAsk', undefined);
      app.addHook('onSend', (request, reply, payload, done) => {
        const key = request.quarryKeptKey;
        if (key === undefined || reply.statusCode !== 200 || isUntaggable(request))
          return done(null, payload);
        if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return done(null, payload);
        const body = typeof payload === 'string' ? Buffer.from(payload) : payload;
        if (body.length > LARGEST_KEPT) return done(null, payload);
        const first = request.quarryFirstAsk;
        if (first !== undefined && performance.now() - first < COSTLY_MS) return done(null, payload);
        store.set(key, { body, headers: keptHeaders(reply) });
        request.quarryCodedKey = key;
        done(null, body);
      });
    },
    registerReplay(app) {
      if (!enabled) return;
      app.decorateRequest('quarryCodedKey', undefined);
      app.addHook('preHandler', (request, reply, done) => {
        const key = keyOf(request);
        if (key === undefined) return done();
        const kind = kindOf(request.routeOptions.url);
        const kept = store.get(key);
        count(kind, kept !== undefined);
        if (kept === undefined) {
          // Kept from its second ask on, or at its first when it took long to make (COSTLY_MS): an answer asked
          // once (a script's own query, a never-asked filter, a crawler's walk) costs no write to the file (1.7 ms
          // of the explorer's grid's 9 ms) and pushes out no answer that is asked again.
          request.quarryKeptKey = key;
          if (askedOnce.get(key) !== true) {
            askedOnce.set(key, true);
            request.quarryFirstAsk = performance.now();
          }
          return done();
        }
        const coding = chooseCoding(request.headers['accept-encoding'], kept.body.length);
        const coded = coding === undefined ? undefined : store.get(`${coding}\u0000${key}`);
        if (coding !== undefined && coded === undefined) {
          request.quarryCodedKey = key;
          // Many clients asking at once before the form is kept: it is made once for them all.
          shareCompressed(reply, key);
        }
        sendKept(reply, kept, coding, coded);
      });
      // After compression: the compressed form sent is kept beside the answer.
      app.addHook('onSend', (request, reply, payload, done) => {
        const key = request.quarryCodedKey;
        const coding = reply.getHeader('content-encoding');
        if (key !== undefined && typeof coding === 'string' && Buffer.isBuffer(payload))
          store.set(`${coding}\u0000${key}`, { body: payload, headers: {} });
        done(null, payload);
      });
    },
    close: () => store.close(),
  };
}

function keptHeaders(reply: FastifyReply): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value === undefined || NOT_KEPT.has(name)) continue;
    out[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return out;
}

function sendKept(reply: FastifyReply, kept: KeptAnswer, coding: string | undefined, coded?: KeptAnswer) {
  reply.headers(kept.headers);
  if (coded === undefined) return reply.send(kept.body);
  // As the compression plugin sends it; it leaves an answer that has a coding as it is.
  const vary = reply.getHeader('vary');
  reply.header('Vary', vary === undefined ? 'Accept-Encoding' : `${String(vary)}, Accept-Encoding`);
  reply.header('Content-Encoding', coding).header('Content-Length', String(coded.body.length));
  reply.send(coded.body);
}
