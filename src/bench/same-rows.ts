/**
 * A posted QueryBuilder query beside a GET page of the same rows, both never asked before, one client: what
 * posting costs over asking for the same rows as a page. The page is the node listing of data nodes, newest
 * first, at an offset of its own each time; the query projects the listing's columns with the same filter,
 * order, limit and offset. Requests of the two kinds alternate, so that the machine's noise falls on both.
 */
import http from 'node:http';
import { median } from './median.js';

export interface SameRows {
  rows: number;
  /** Medians over the rounds, in ms, request to last byte. */
  getMs: number;
  postMs: number;
  /** postMs / getMs. */
  ratio: number;
}

// What the node listing answers (full_type is made from node_type and process_type by both).
const COLUMNS = ['id', 'uuid', 'node_type', 'process_type', 'label', 'ctime', 'mtime', 'user_id'];
const ROUNDS = 101;

export async function sameRows(base: string, sizes = [20, 400]): Promise<SameRows[]> {
  const url = new URL(base);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const ask = (method: 'GET' | 'POST', path: string, body?: string) =>
    new Promise<{ ms: number; json: Record<string, unknown>; headers: http.IncomingHttpHeaders }>(
      (resolve, reject) => {
        const start = performance.now();
        const headers = body === undefined ? {} : { 'content-type': 'application/json' };
        const request = http.request(
          { host: url.hostname, port: url.port, method, path, agent, headers },
          (response) => {
            const chunks: Buffer[] = [];
            response.on('data', (c: Buffer) => chunks.push(c));
            response.on('end', () => {
              const ms = performance.now() - start;
              const text = Buffer.concat(chunks).toString();
              if (response.statusCode !== 200)
                reject(new Error(`${method} ${path}: ${response.statusCode} ${text}`));
              else
                resolve({ ms, json: JSON.parse(text) as Record<string, unknown>, headers: response.headers });
            });
          },
        );
        request.on('error', reject);
        request.end(body);
      },
    );
  const page = (limit: number, offset: number) =>
    `/api/v4/nodes/?node_type=like="data.%25"&orderby=-ctime&limit=${limit}&offset=${offset}`;
  const posted = (limit: number, offset: number) =>
    JSON.stringify({
      path: [{ entity_type: '', orm_base: 'node', tag: 'node' }],
      filters: { node: { node_type: { like: 'data.%' } } },
      project: { node: COLUMNS },
      order_by: [{ node: [{ ctime: { order: 'desc' } }] }],
      limit,
      offset,
    });
  const rowsOf = (json: Record<string, unknown>, key: string) =>
    (json.data as Record<string, Record<string, unknown>[]> | undefined)?.[key] ?? [];
  // The same records: as many, with the same fields.
  const fields = (rows: Record<string, unknown>[]) =>
    `${rows.length}: ${Object.keys(rows[0] ?? {})
      .sort()
      .join()}`;
  try {
    const total = Number((await ask('GET', page(1, 0))).headers['x-total-count']);
    const out: SameRows[] = [];
    for (const rows of sizes) {
      // Offsets never asked before: even ones for pages, odd ones for queries, all within the rows there are.
      if (!(total >= rows + 2 * ROUNDS)) continue;
      const get: number[] = [];
      const post: number[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        const g = await ask('GET', page(rows, 2 * i));
        const p = await ask('POST', '/api/v4/querybuilder/', posted(rows, 2 * i + 1));
        const [paged, queried] = [fields(rowsOf(g.json, 'nodes')), fields(rowsOf(p.json, 'node'))];
        if (paged !== queried || rowsOf(g.json, 'nodes').length !== rows)
          throw new Error(`the page and the query answered different rows: ${paged} against ${queried}`);
        get.push(g.ms);
        post.push(p.ms);
      }
      const [getMs, postMs] = [median(get)!, median(post)!];
      out.push({
        rows,
        getMs: Number(getMs.toFixed(2)),
        postMs: Number(postMs.toFixed(2)),
        ratio: Number((postMs / getMs).toFixed(2)),
      });
    }
    return out;
  } finally {
    agent.destroy();
  }
}
