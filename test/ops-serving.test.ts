/**
 * What only the real command shows: metrics summed across `--processes` serving processes whichever one is
 * scraped, the request log of several processes, and graceful shutdown on SIGTERM with requests in flight.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { get } from 'node:http';
import { connect, type Socket } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { smallArchive, tempDir } from './helpers.js';
import { cli, until } from './support/serving.js';

interface Started {
  server: ChildProcessWithoutNullStreams;
  port: number;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

/** `quarry serve ARCHIVE` as a real process on a free port, once it says it serves. */
async function serve(archive: string, processes: number, extra: string[] = []): Promise<Started> {
  const args = ['serve', archive, '--port', '0', '--processes', String(processes), '--cache-dir', tempDir()];
  const server = spawn(process.execPath, [cli, ...args, ...extra]);
  let stdout = '';
  let stderr = '';
  server.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  server.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => server.once('exit', (code) => resolve(code)));
  const port = await until('the serving line', () => /:(\d+)\/api\/v4\//.exec(stderr)?.[1]).catch((error) => {
    server.kill('SIGKILL');
    throw error;
  });
  return { server, port: Number(port), stdout: () => stdout, stderr: () => stderr, exited };
}

/** A GET on a connection of its own: with several processes, each connection may go to another one. */
function fetchAlone(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    get({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    }).on('error', reject);
  });
}

function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

/** Whether a new connection to the port is refused. */
function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(false)));
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

const QUERY = JSON.stringify({
  path: [{ entity_type: '', orm_base: 'node', tag: 'n' }],
  project: { n: ['id', 'uuid', 'node_type'] },
  limit: 50,
});

/**
 * A posted QueryBuilder query whose body arrives in two parts: in flight from its headers on, until `finish()`
 * sends the rest. Resolves with the whole exchange once the server closes the connection.
 */
function slowPost(port: number) {
  const socket: Socket = connect(port, '127.0.0.1');
  const chunks: Buffer[] = [];
  const half = Math.floor(QUERY.length / 2);
  socket.on('data', (chunk) => chunks.push(chunk));
  socket.on('error', () => undefined);
  const answer = new Promise<{ head: string; body: string }>((resolve) =>
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString();
      const split = text.indexOf('\r\n\r\n');
      resolve({ head: text.slice(0, Math.max(0, split)), body: split === -1 ? '' : text.slice(split + 4) });
    }),
  );
  const sent = new Promise<void>((resolve) =>
    socket.on('connect', () => {
      socket.write(
        `POST /api/v4/querybuilder/ HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
          `Content-Length: ${Buffer.byteLength(QUERY)}\r\n\r\n${QUERY.slice(0, half)}`,
        () => resolve(),
      );
    }),
  );
  return { sent, answer, finish: () => socket.write(QUERY.slice(half)) };
}

const built = existsSync(cli) && process.platform === 'linux';

describe.skipIf(!built)('quarry serve: metrics and logs of several processes (built CLI)', () => {
  let archive: string;
  beforeAll(async () => {
    archive = await smallArchive(300, 4);
  });

  it('answers /metrics with the sum of every serving process, whichever process is scraped', async () => {
    const { server, port, stdout, exited } = await serve(archive, 2, [
      '--metrics',
      '--log',
      '--log-format',
      'json',
    ]);
    try {
      for (let i = 0; i < 10; i++)
        expect((await fetchAlone(port, '/api/v4/nodes/?limit=2')).status).toBe(200);
      // Each scrape lands on one process or the other (connections go round); all say the same.
      for (let i = 0; i < 4; i++) {
        const scrape = await fetchAlone(port, '/metrics');
        expect(scrape.status).toBe(200);
        expect(sample(scrape.body, 'quarry_processes')).toBe(2);
        expect(sample(scrape.body, 'quarry_http_requests_total{kind="node_list",status="200"}')).toBe(10);
        expect(sample(scrape.body, 'quarry_http_request_duration_seconds_count{kind="node_list"}')).toBe(10);
        expect(sample(scrape.body, 'quarry_http_requests_total{kind="metrics",status="200"}')).toBe(i);
        expect(sample(scrape.body, 'quarry_source_ready{source="small-300-4",kind="archive"}')).toBe(1);
        // Memory of both processes, summed.
        expect(sample(scrape.body, 'process_resident_memory_bytes')).toBeGreaterThan(40e6);
      }
      // Both processes answered requests, each logged them once.
      await until('the log lines', () =>
        stdout()
          .split('\n')
          .filter((l) => l.includes('"kind":"node_list"')).length === 10
          ? true
          : undefined,
      );
      const lines = stdout()
        .split('\n')
        .filter((l) => l.includes('"msg":"request"'))
        .map((l) => JSON.parse(l));
      expect(new Set(lines.filter((l) => l.kind === 'node_list').map((l) => l.pid)).size).toBe(2);
    } finally {
      server.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
  });
});

describe.skipIf(!built)('quarry serve: graceful shutdown (built CLI)', () => {
  let archive: string;
  beforeAll(async () => {
    archive = await smallArchive(300, 3);
  });

  for (const processes of [1, 2]) {
    it(`on SIGTERM refuses new connections, finishes the requests in flight and exits 0 (${processes} process${processes > 1 ? 'es' : ''})`, async () => {
      const { server, port, exited, stderr } = await serve(archive, processes);
      let code: number | null | undefined;
      void exited.then((c) => (code = c));
      // An idle keep-alive connection must not hold the stop up.
      const idle = connect(port, '127.0.0.1');
      idle.on('error', () => undefined);
      const posts = [slowPost(port), slowPost(port), slowPost(port)];
      await Promise.all(posts.map((p) => p.sent));
      await new Promise((r) => setTimeout(r, 300));

      server.kill('SIGTERM');
      await until('new connections refused', async () => ((await refused(port)) ? true : undefined), 5_000);
      expect(code).toBeUndefined();

      const stopAsked = Date.now();
      for (const post of posts) post.finish();
      for (const post of posts) {
        const { head, body } = await post.answer;
        // Answered in full, then its connection closed (the answer resolves at the close).
        expect(head).toMatch(/^HTTP\/1\.1 200 OK/);
        const json = JSON.parse(body);
        expect(json.data.n).toHaveLength(50);
      }
      expect(await exited).toBe(0);
      // Well before the 10 s limit, and before the 72 s an idle connection is kept.
      expect(Date.now() - stopAsked).toBeLessThan(5_000);
      expect(stderr()).not.toMatch(/died|killed/);
    });
  }

  it('closes what has not finished at --shutdown-timeout and still exits 0', async () => {
    const { server, exited, port } = await serve(archive, 2, ['--shutdown-timeout', '1']);
    const stuck = slowPost(port);
    await stuck.sent;
    await new Promise((r) => setTimeout(r, 300));
    const started = Date.now();
    server.kill('SIGTERM');
    // The body never comes: the connection is closed at the limit, without an answer.
    const { head } = await stuck.answer;
    expect(head).toBe('');
    expect(await exited).toBe(0);
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(900);
    expect(took).toBeLessThan(5_000);
  });
});
