/** Quarry serving one archive on a free loopback port, in its own process, for the benchmark. */
import { buildApp } from '../http/app.js';
import { openArchive } from '../storage/index.js';

const file = process.argv[2];
if (!file) throw new Error('usage: serve-bench FILE.aiida');
const backend = await openArchive(file);
const app = await buildApp({ backends: [backend] });
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
process.stdout.write(`ready ${typeof address === 'object' && address ? address.port : 0}\n`);
// A normal exit on a signal, so that profilers (node --cpu-prof) write their output.
process.once('SIGINT', () => process.exit(0));
process.once('SIGTERM', () => process.exit(0));
