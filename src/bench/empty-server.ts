/**
 * The HTTP floors: a Fastify server with an empty route (and `/bytes/N`, N kept bytes: the floor of a large
 * answer, asked with GET or with a posted body), `empty-server PROCESSES`, served on as many processes as the
 * Quarry it is compared with and supervised the same way: serving on two processes costs more per answer than on
 * one (three busy processes, load generator included, share two cores), and that cost is HTTP's.
 */
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { isServingProcess, reportServing, superviseProcesses } from '../cli/processes.js';
import { servedStatements } from './served-statements.js';

interface BytesRoute {
  Params: { size: string };
  Querystring: { hold?: string };
}

const processes = Number(process.argv[2] ?? 1);
if (!Number.isInteger(processes) || processes < 1) throw new Error('usage: empty-server PROCESSES');
if (processes > 1 && !isServingProcess()) {
  process.stdout.write(`ready ${(await superviseProcesses(processes)).port}\n`);
} else {
  const app = Fastify();
  app.get('/', async () => ({}));
  // The floor of a large answer (the explorer grid's 418 kB): kept bytes of its size, with its content type.
  // `?hold=US`: the CPU held busy that long first, as a server making its answer does. At one client, a server
  // slower to answer pays more for HTTP: the client's core has gone idle meanwhile and must be woken, and so
  // must the server's at the next request (on this virtual machine 130-200 µs more per answer at 0.3-0.8 ms).
  const kept = new Map<number, Buffer>();
  const bytes = (request: FastifyRequest<BytesRoute>, reply: FastifyReply) => {
    const size = Math.min(Math.max(Number(request.params.size) || 0, 0), 16 * 1024 * 1024);
    const body = kept.get(size) ?? kept.set(size, Buffer.alloc(size, 0x20)).get(size)!;
    const holdUs = Math.min(Math.max(Number(request.query.hold) || 0, 0), 1_000_000);
    if (holdUs > 0) {
      const until = process.hrtime.bigint() + BigInt(Math.round(holdUs * 1000));
      while (process.hrtime.bigint() < until);
    }
    return reply.type('application/json').send(body);
  };
  app.get<BytesRoute>('/bytes/:size', bytes);
  // A posted query's floor: its body read first, as Quarry reads a posted query's (the parser below).
  app.post<BytesRoute>('/bytes/:size', bytes);
  // The SQL floor served (src/bench/served-statements.ts): `POST /statements?spec=PATH` runs the statements of
  // the spec file straight and sends what they wrote; the body is read as Quarry reads a posted query's.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));
  const served = new Map<string, ReturnType<typeof servedStatements>>();
  app.post<{ Querystring: { spec?: string } }>('/statements', (request, reply) => {
    const spec = String(request.query.spec ?? '');
    const statements = served.get(spec) ?? served.set(spec, servedStatements(spec)).get(spec)!;
    return reply.type('application/json; charset=utf-8').send(statements.answer());
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (isServingProcess()) reportServing(['empty route']);
  else process.stdout.write(`ready ${typeof address === 'object' && address ? address.port : 0}\n`);
}
