/** Quarry serving the benchmark's storage on a free loopback port, in its own process. */
import { buildApp } from '../http/app.js';
import { benchBackend } from './backend.js';

const [file, pgUrl] = process.argv.slice(2);
if (!file) throw new Error('usage: serve-bench FILE.aiida [POSTGRES_URL]');
const backend = await benchBackend(file, pgUrl);
const app = await buildApp({ backends: [backend] });
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
process.stdout.write(`ready ${typeof address === 'object' && address ? address.port : 0}\n`);
// A normal exit on a signal, so that profilers (node --cpu-prof) write their output.
process.once('SIGINT', () => process.exit(0));
process.once('SIGTERM', () => process.exit(0));
