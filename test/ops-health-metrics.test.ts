/**
 * /healthz, /readyz and /metrics over real HTTP, on a generated archive and beside storages whose health
 * check says they are not ready or never answers.
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/server/app.js';
import { setFailureSink } from '../src/http/failures.js';
import { endpointKinds } from '../src/ops/endpoint-kind.js';
import { countConditional } from '../src/ops/metrics.js';
import { openArchive } from '../src/storage/index.js';
import type { SqlitePool } from '../src/storage/sqlite-pool.js';
import type { SourceHealth, StorageBackend } from '../src/storage/types.js';
import { listeningOn, smallArchive, tempDir } from './helpers.js';

let archive: string;
beforeAll(async () => {
  archive = await smallArchive(200, 5);
});

async function get(port: number, path: string) {
  const res = await fetch(`http://127.0.0.1:${port}${path}`);
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** The value of one series in a Prometheus text answer (0 when absent). */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

/** The archive as another source whose storage reports its own health. */
function withHealth(backend: StorageBackend, name: string, health: () => Promise<SourceHealth>) {
  return Object.create(backend, {
    name: { value: name },
    kind: { value: 'postgres-profile' },
    health: { value: health },
  }) as StorageBackend;
}

describe('health checks', () => {
  it('/healthz answers while the process runs; /readyz lists the sources, ready', async () => {
    const served = await listeningOn(archive);
    try {
      const live = await get(served.port, '/healthz');
      expect(live.status).toBe(200);
      expect(JSON.parse(live.text)).toEqual({ status: 'ok' });
      const ready = await get(served.port, '/readyz');
      expect(ready.status).toBe(200);
      expect(ready.headers.get('cache-control')).toBe('no-store');
      expect(JSON.parse(ready.text)).toEqual({
        status: 'ready',
        sources: [{ name: served.backend.name, kind: 'archive', ready: true }],
      });
      // Outside the API prefix: the API's own URLs are unchanged.
      expect((await get(served.port, '/api/v4/healthz')).status).toBe(404);
    } finally {
      await served.close();
    }
  });

  it('/readyz is 503 naming the source that is not ready, and does not hang on one that never answers', async () => {
    const backend = await openArchive(archive, { cacheDir: tempDir() });
    const down = withHealth(backend, 'live', async () => ({
      ready: false,
      message: 'the primary 127.0.0.1:1/aiida is down (connection refused)',
      servers: [
        {
          server: '127.0.0.1:1/aiida',
          role: 'primary',
          up: false,
          problem: 'connection refused',
          sessions: { total: 0, idle: 0, waiting: 0 },
        },
      ],
    }));
    const hung = withHealth(backend, 'hung', () => new Promise<SourceHealth>(() => undefined));
    const app = await buildApp({ backends: [backend, down, hung] });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const port = (app.server.address() as AddressInfo).port;
    try {
      const started = Date.now();
      const answer = await get(port, '/readyz');
      expect(Date.now() - started).toBeLessThan(4_000);
      expect(answer.status).toBe(503);
      const body = JSON.parse(answer.text);
      expect(body.message).toMatch(/source live is not ready: the primary 127.0.0.1:1\/aiida is down/);
      expect(body.message).toMatch(/source hung is not ready: its health check did not answer within 2 s/);
      expect(body.sources.map((s: { name: string; ready: boolean }) => [s.name, s.ready])).toEqual([
        [backend.name, true],
        ['live', false],
        ['hung', false],
      ]);
      expect(body.sources[1].servers[0]).toMatchObject({ role: 'primary', up: false });
      // The API itself still answers from the ready source.
      expect((await get(port, '/api/v4/nodes/?limit=1')).status).toBe(200);
    } finally {
      await app.close();
      await backend.close();
    }
  });
});

describe('metrics', () => {
  it('are off by default: /metrics says how to turn them on', async () => {
    const served = await listeningOn(archive);
    try {
      const answer = await get(served.port, '/metrics');
      expect(answer.status).toBe(404);
      expect(JSON.parse(answer.text).message).toMatch(/--metrics/);
    } finally {
      await served.close();
    }
  });

  describe('with --metrics', () => {
    let served: Awaited<ReturnType<typeof listeningOn>>;
    beforeAll(async () => {
      served = await listeningOn(archive, { metrics: true });
    });
    afterAll(() => served.close());

    it('count requests by endpoint kind and status, their latency and their queries', async () => {
      const before = (await get(served.port, '/metrics')).text;
      await get(served.port, '/api/v4/nodes/?limit=3');
      await get(served.port, '/api/v4/nodes/page/2/?perpage=3');
      await get(served.port, '/api/v4/nodes/no-such-node');
      await get(served.port, '/api/v4/nodes/?limit=3');
      await get(served.port, '/no/such/url');
      await get(served.port, '/api/v4/nodes/?limit=4');
      await get(served.port, '/api/v4/nodes/?limit=3');
      const answer = await get(served.port, '/metrics');
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toMatch(/^text\/plain; version=0.0.4/);
      const text = answer.text;
      const delta = (series: string) => sample(text, series) - sample(before, series);
      expect(delta('quarry_http_requests_total{kind="node_list",status="200"}')).toBe(4);
      expect(delta('quarry_http_requests_total{kind="node_page",status="200"}')).toBe(1);
      expect(delta('quarry_http_requests_total{kind="node",status="404"}')).toBe(1);
      expect(delta('quarry_http_requests_total{kind="not_found",status="404"}')).toBe(1);
      expect(delta('quarry_http_request_duration_seconds_count{kind="node_list"}')).toBe(4);
      // The same listing three times: its answer is kept at the second ask, sent kept at the third; another
      // limit: its plan is.
      expect(delta('quarry_kept_answers_total{kind="node_list",result="hit"}')).toBe(1);
      expect(delta('quarry_kept_answers_total{kind="node_list",result="miss"}')).toBe(3);
      expect(delta('quarry_query_duration_seconds_count')).toBeGreaterThanOrEqual(4);
      expect(delta('quarry_plan_cache_lookups_total{result="hit"}')).toBeGreaterThan(0);
      expect(sample(text, 'quarry_query_timeouts_total')).toBe(0);
      expect(sample(text, `quarry_source_ready{source="${served.backend.name}",kind="archive"}`)).toBe(1);
      expect(sample(text, `quarry_queries_waiting{source="${served.backend.name}",lane="ordinary"}`)).toBe(0);
      expect(sample(text, 'quarry_archive_extractions_total')).toBeGreaterThanOrEqual(1);
      expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(10e6);
      expect(sample(text, 'quarry_processes')).toBe(1);
      // No raw URL becomes a label.
      expect(text).not.toMatch(/no-such|page\/2/);
    });

    it('count SQLite statements run in the serving thread: answered there, or stopped and run elsewhere', async () => {
      const pool = served.backend.db as SqlitePool;
      const before = (await get(served.port, '/metrics')).text;
      // A shape never run: tried in the thread, where it is quick.
      expect(
        await pool.all({ sql: 'SELECT count(*) AS n FROM db_dbnode WHERE id > ? + 0', params: [2] }),
      ).toHaveLength(1);
      // Counting to 20 million: stopped after its few ms, and answered by a query process.
      const slow =
        'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < ?) SELECT count(*) AS n FROM c';
      expect(await pool.all({ sql: slow, params: [20_000_000] })).toEqual([{ n: 20_000_000 }]);
      const text = (await get(served.port, '/metrics')).text;
      const delta = (series: string) => sample(text, series) - sample(before, series);
      expect(delta('quarry_statements_in_thread_total{outcome="answered"}')).toBe(1);
      expect(delta('quarry_statements_in_thread_total{outcome="stopped"}')).toBe(1);
    });

    it('count conditional requests for the ETag code', async () => {
      const before = (await get(served.port, '/metrics')).text;
      countConditional(true);
      countConditional(true);
      countConditional(false);
      const text = (await get(served.port, '/metrics')).text;
      const delta = (series: string) => sample(text, series) - sample(before, series);
      expect(delta('quarry_http_conditional_requests_total{result="not_modified"}')).toBe(2);
      expect(delta('quarry_http_conditional_requests_total{result="modified"}')).toBe(1);
    });

    it('count queries stopped at the time limit', async () => {
      const slow = await listeningOn(archive, { metrics: true, queryTimeoutMs: 1 });
      const failures: string[] = [];
      const restore = setFailureSink((line) => failures.push(line));
      try {
        // A 200-row listing races its 1 ms limit, and once (a clean CI machine) it was answered within it. Each
        // try is another URL, so that no answer is kept; the first that is stopped ends the tries.
        let stopped = 0;
        for (let limit = 400; limit > 380 && stopped === 0; limit--) {
          const page = await get(slow.port, `/api/v4/nodes/?limit=${limit}&attributes=true`);
          expect([200, 503]).toContain(page.status);
          if (page.status === 503) stopped++;
        }
        expect(stopped).toBe(1);
        const text = (await get(slow.port, '/metrics')).text;
        expect(sample(text, 'quarry_query_timeouts_total')).toBeGreaterThanOrEqual(1);
        expect(sample(text, 'quarry_http_requests_total{kind="node_list",status="503"}')).toBe(1);
        expect(failures).toHaveLength(1);
      } finally {
        restore();
        await slow.close();
      }
    });
  });
});

describe('endpoint kinds', () => {
  it('name every route by a small fixed set, never its URL', () => {
    const kindOf = endpointKinds('/api/v4');
    const cases: [string | undefined, string][] = [
      ['/api/v4', 'server'],
      ['/api/v4/server/endpoints', 'server'],
      ['/api/v4/nodes', 'node_list'],
      ['/api/v4/nodes/page/:page(^\\d+$)', 'node_page'],
      ['/api/v4/nodes/:id', 'node'],
      ['/api/v4/nodes/:id/links/incoming/page', 'links'],
      ['/api/v4/nodes/:id/links/tree', 'tree'],
      ['/api/v4/nodes/:id/contents/attributes', 'node_contents'],
      ['/api/v4/nodes/:id/download', 'download'],
      ['/api/v4/nodes/:id/repo/contents', 'download'],
      ['/api/v4/nodes/full_types_count', 'statistics'],
      ['/api/v4/computers', 'list'],
      ['/api/v4/groups/page', 'page'],
      ['/api/v4/users/:id', 'entity'],
      ['/api/v4/processes/:id/report', 'node_contents'],
      ['/api/v4/calcjobs/projectable_properties', 'projectable'],
      ['/api/v4/querybuilder', 'querybuilder'],
      ['/healthz', 'health'],
      ['/metrics', 'metrics'],
      ['/explorer/*', 'other'],
      [undefined, 'not_found'],
    ];
    for (const [route, kind] of cases) expect([route, kindOf(route)]).toEqual([route, kind]);
  });
});
