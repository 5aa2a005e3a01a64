/** The HTTP floor: a Fastify server with one empty route, in its own process like the server measured. */
import Fastify from 'fastify';

const app = Fastify();
app.get('/', async () => ({}));
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
process.stdout.write(`ready ${typeof address === 'object' && address ? address.port : 0}\n`);
