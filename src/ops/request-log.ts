/**
 * Request ids and the request log. Every answer carries `X-Request-Id`: the client's own when it is a sane
 * token (a proxy's or a tracing system's), else one made here; failure lines (src/http/failures.ts) and log
 * lines carry it too, so that a user's report, a proxy's log and ours meet. With `--log`, one line per request
 * when it has been answered (Fastify's own two lines per request stay off), as JSON or, for people, pretty
 * (the default on a terminal). Without `--log`, nothing is written per request.
 */
import type { IncomingMessage } from 'node:http';
import { LogController, type FastifyInstance, type FastifyReply, type FastifyServerOptions } from 'fastify';
import pinoPretty from 'pino-pretty';
import type { AppContext } from '../http/context.js';
import { newRequestId } from '../http/request-id.js';
import { requestSourceName } from '../http/request.js';
import { endpointKinds } from './endpoint-kind.js';

export type LogFormat = 'json' | 'pretty';

export interface RequestLogOptions {
  /** Log every request. */
  log?: boolean;
  /** Default: pretty when the destination is a terminal. */
  format?: LogFormat;
  /** Where log lines go (default stdout). */
  destination?: NodeJS.WritableStream & { isTTY?: boolean };
}

/** Ids of proxies and tracers (UUIDs, hex, base64) fit; anything else is replaced, never echoed. */
const SAFE_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;
function requestId(raw: IncomingMessage): string {
  const given = raw.headers['x-request-id'];
  return typeof given === 'string' && SAFE_ID.test(given) ? given : newRequestId();
}

/** The Fastify options of request ids and logging. */
export function logServerOptions(options: RequestLogOptions): FastifyServerOptions {
  return {
    genReqId: requestId,
    requestIdHeader: false,
    // Fastify's own lines per request ('incoming request', 'request completed') are replaced by ours.
    logController: new LogController({ disableRequestLogging: true }),
    logger: options.log ? loggerOptions(options) : false,
  };
}

/** Fields of a request line, hidden from the pretty form's trailing object (its message shows them). */
const REQUEST_FIELDS = ['reqId', 'method', 'url', 'kind', 'status', 'bytes', 'ms', 'profile'];

function loggerOptions(options: RequestLogOptions) {
  const destination = options.destination ?? process.stdout;
  const format = options.format ?? (destination.isTTY ? 'pretty' : 'json');
  const stream =
    format === 'json'
      ? destination
      : pinoPretty({
          destination,
          colorize: destination.isTTY === true,
          translateTime: 'SYS:HH:MM:ss.l',
          ignore: ['pid', 'hostname', ...REQUEST_FIELDS].join(','),
          singleLine: true,
          messageFormat: (log, key) =>
            log.method === undefined
              ? String(log[key])
              : `${String(log.method)} ${String(log.url)} ${String(log.status)} ${String(log.bytes)} B ` +
                `${String(log.ms)} ms (${String(log.kind)}, ${String(log.profile)}, ${String(log.reqId)})`,
        });
  return {
    level: 'info',
    stream,
    base: { pid: process.pid },
    timestamp: () => `,"time":"${new Date().toISOString()}"`,
    formatters: { level: (label: string) => ({ level: label }) },
  };
}

/** With `--log`: one line per request, at the time it has been answered. */
export function registerRequestLog(app: FastifyInstance, ctx: AppContext, options: RequestLogOptions) {
  if (!options.log) return;
  const kindOf = endpointKinds(ctx.prefix);

  const sentBefore = new WeakMap<object, number>();
  app.addHook('onRequest', (request, _reply, done) => {
    sentBefore.set(request, request.raw.socket?.bytesWritten ?? 0);
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    // The URL as asked: a source's path (`/<name>/api/v4/...`) is routed without its name (src/http/mount.ts).
    const url = (request.raw as { originalUrl?: string }).originalUrl ?? request.raw.url ?? '';
    request.log.info(
      {
        method: request.method,
        url,
        kind: kindOf(request.routeOptions.url),
        status: reply.statusCode,
        bytes: bytesOf(reply, sentBefore.get(request) ?? 0),
        ms: Math.round(reply.elapsedTime * 10) / 10,
        profile: requestSourceName(ctx, request) ?? profileOf(url, ctx.catalog.first ?? '-'),
      },
      'request',
    );
    done();
  });
}

/** Bytes of the answer's body: its Content-Length, or what went on the connection past the headers. */
function bytesOf(reply: FastifyReply, before: number): number {
  const declared = Number(reply.getHeader('content-length'));
  if (Number.isInteger(declared) && declared >= 0) return declared;
  const head = (reply.raw as { _header?: string | null })._header?.length ?? 0;
  return Math.max(0, (reply.raw.socket?.bytesWritten ?? before) - before - head);
}

/** The source a request addressed (`?profile=`), or the default one. */
function profileOf(url: string, defaultProfile: string): string {
  const q = url.indexOf('?');
  if (q === -1 || !url.includes('profile=', q)) return defaultProfile;
  return (new URLSearchParams(url.slice(q + 1)).get('profile') ?? defaultProfile).slice(0, 100);
}
