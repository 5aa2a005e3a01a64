/** `/querybuilder/`: GET explains itself with a 405; POST runs a QueryBuilder dictionary. */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { badRequest } from '../../rest/errors.js';
import { postedAnswer } from '../../rest/posted-answers.js';
import { dataBytes } from '../../rest/querybuilder.js';
import { shareCompressed } from '../shared-bytes.js';
import type { AppContext } from '../context.js';
import { listHeaders } from '../envelope.js';
import { parseRequest } from '../request.js';
import { toJson } from '../../util/exact-json.js';
import { requestUrl } from '../url.js';

const DATA_HEAD = '{"data":';
const DATA_HEAD_BYTES = Buffer.from(DATA_HEAD);

function enveloped(data: Buffer, tailText: string): Buffer {
  const tail = Buffer.from(tailText);
  return Buffer.concat([DATA_HEAD_BYTES, data, tail], DATA_HEAD_BYTES.length + data.length + tail.length);
}

const GET_MESSAGE =
  'Method Not Allowed. Use HTTP POST requests to use the AiiDA QueryBuilder. ' +
  'POST JSON data, which MUST be a valid QueryBuilder.as_dict() dictionary as a JSON object. ' +
  'See the documentation at ' +
  'https://aiida.readthedocs.io/projects/aiida-core/en/latest/topics/database.html' +
  '#converting-the-querybuilder-to-from-a-dictionary for more information.';

export function registerQueryBuilder(app: FastifyInstance, ctx: AppContext) {
  if (!ctx.posting) return;
  const path = `${ctx.prefix}/querybuilder`;
  app.get(path, async (request, reply) => {
    const u = requestUrl(request, ctx.origin);
    return reply
      .code(405)
      .headers(listHeaders(1))
      .send({
        data: { message: GET_MESSAGE },
        method: u.method,
        path: u.path,
        query_string: u.queryString,
        resource_type: 'QueryBuilder',
        url: u.url,
        url_root: u.urlRoot,
      });
  });
  app.post(path, { onRequest: anyContentType }, async (request, reply) => {
    underWay++;
    try {
      // Requests that arrived with this one start first, so that the count says whether they crowd.
      await new Promise<void>((resolve) => setImmediate(resolve));
      return await answer(request, reply, underWay <= CROWD);
    } finally {
      underWay--;
    }
  });

  async function answer(request: FastifyRequest, reply: FastifyReply, inThread: boolean) {
    const { url, backend } = parseRequest(ctx, request, true, inThread);
    const text = typeof request.body === 'string' ? request.body : '';
    const read = () => bodyJson(request.body);
    const rest = {
      method: url.method,
      path: url.path,
      query_string: url.rawQuery,
      resource_type: 'QueryBuilder',
      url: url.url,
      url_root: url.urlRoot,
    };
    const tail = `,${toJson(rest).slice(1)}`;
    // Where SQLite writes the answer, it writes this envelope around the data: the answer is its bytes.
    const around = { head: DATA_HEAD, tail };
    const result = await postedAnswer(backend, text, read, ctx.queryLimits, ctx.maxRows, around);
    reply.headers(listHeaders(result.total));
    if (!Buffer.isBuffer(result.data)) return reply.send({ data: result.data, ...rest });
    reply.type('application/json; charset=utf-8');
    // Every request with this envelope gets the same bytes: each compressed form is made once for them all.
    if (result.key !== undefined) shareCompressed(reply, `${result.key}\u0000${tail}`);
    // An answer made for many is JSON already: written around this request's envelope unless it has it.
    const own =
      result.around !== undefined && result.around.head === DATA_HEAD && result.around.tail === tail;
    return reply.send(own ? result.data : enveloped(dataBytes(result.data, result.around), tail));
  }
}

/**
 * Posted queries under way in this process. While there are at most CROWD, their statements may run in the
 * serving thread (a few ms at most, see storage/sqlite-pool.ts), which answers in arrival order; past it they
 * wait in the heavy lane, where clients take turns: a client's flood does not hold up another's one query.
 */
let underWay = 0;
const CROWD = 2;

const WANTED = 'POST a QueryBuilder.as_dict() dictionary as a JSON object';

/**
 * The body as JSON whatever its Content-Type, as the reference reads it. Fastify refuses a Content-Type it
 * cannot even parse (415) before any body parser runs; without the header, the body goes to the one parser.
 */
function anyContentType(request: FastifyRequest, _reply: FastifyReply, done: () => void) {
  // Set to undefined rather than deleted: a delete turns the headers object into a slow dictionary for every
  // later read of a header.
  request.raw.headers['content-type'] = undefined;
  done();
}

/** The body text (src/server/app.ts keeps every body as text) read as JSON. */
function bodyJson(body: unknown): unknown {
  if (typeof body !== 'string' || body.trim() === '')
    throw badRequest(`The request body is empty; ${WANTED}`);
  try {
    return JSON.parse(body);
  } catch (error) {
    throw badRequest(`The request body is not valid JSON (${(error as Error).message}); ${WANTED}`);
  }
}
