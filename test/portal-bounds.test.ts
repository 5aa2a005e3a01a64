/**
 * A portal that holds under load: a few hundred archives served by two processes whose open-file limit is low,
 * asked by several clients at once across every source (the v4 API, repository files, OPTIMADE). Open files stay
 * within the server's own bound, every intact source answers 200, and once the load stops each serving process
 * comes back near the memory it had before.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { smallArchive } from './helpers.js';
import { openFiles, portalFolder, residentMb, serveLimited, servingPids } from './support/bounded-portal.js';
import { cli, type Serving } from './support/serving.js';

const COUNT = 240;
const NOFILE = 256;
const LOAD_MS = 20_000;
const CLIENTS = 4;
/** Files sources and side tables may keep open: fewer than the sources asked, so the budget closes some. */
const BUDGET = 20;

const servers: Serving[] = [];

/** The requests of the load, on one source: listings, a filter, OPTIMADE (its side table), statistics. */
const paths = (name: string) => [
  `/${name}/api/v4/nodes/page/1?perpage=3&orderby=id`,
  `/${name}/api/v4/nodes/page/1?perpage=1&node_type=%22data.core.structure.StructureData.%22`,
  `/${name}/optimade/v1/structures?page_limit=2`,
  `/${name}/api/v4/nodes/statistics`,
];
afterAll(() => {
  for (const s of servers) s.server.kill('SIGKILL');
});

describe.skipIf(!existsSync(cli))('a portal under load with a low open-file limit (built CLI)', () => {
  let serving: Serving;
  let folder: string;

  beforeAll(async () => {
    folder = portalFolder(await smallArchive(60, 21), COUNT);
    serving = await serveLimited(NOFILE, [
      folder,
      '--processes',
      '2',
      '--watch-interval',
      '1',
      '--metrics',
      '--max-open-files',
      String(BUDGET),
      '--idle-close',
      '2',
    ]);
    servers.push(serving);
  }, 120_000);

  it(
    'keeps open files bounded, answers every intact source 200, and gives memory back when the load stops',
    { timeout: 150_000 },
    async () => {
      const { port } = serving;
      const pids = servingPids(serving);
      expect(pids).toHaveLength(2);
      // "Before" is a serving process that has answered each kind of request of the load once (its code loaded
      // and compiled), on two sources, which are then closed as idle: what the load adds is the many sources.
      for (let round = 0; round < 4; round++)
        for (const path of paths('set-000').concat(paths('set-001')))
          await fetch(`http://127.0.0.1:${port}${path}`).then((r) => r.arrayBuffer());
      // A side table's space groups are found once it is opened, in threads that leave the process larger once
      // (their code and heaps): each process runs such a pass before "before" too. Asked until answered.
      for (let i = 0; i < 60; i++) {
        const name = `set-00${i % 4}`;
        const url = `http://127.0.0.1:${port}/${name}/optimade/v1/structures?response_fields=space_group_it_number`;
        const res = await fetch(url);
        await res.arrayBuffer();
        if (res.status !== 200) await new Promise((r) => setTimeout(r, 250));
      }
      await new Promise((r) => setTimeout(r, 4_000));
      const before = new Map(pids.map((pid) => [pid, residentMb(pid)]));
      const filesBefore = new Map(pids.map((pid) => [pid, openFiles(pid)]));

      const mostFiles = new Map(pids.map((pid) => [pid, 0]));
      const mostMb = new Map(pids.map((pid) => [pid, 0]));
      const sampler = setInterval(() => {
        for (const pid of pids) {
          mostFiles.set(pid, Math.max(mostFiles.get(pid)!, openFiles(pid)));
          mostMb.set(pid, Math.max(mostMb.get(pid)!, residentMb(pid)));
        }
      }, 100);

      const statuses = new Map<number, number>();
      const wrong: string[] = [];
      const end = Date.now() + LOAD_MS;
      let asked = 0;
      await Promise.all(
        Array.from({ length: CLIENTS }, async (_, client) => {
          for (let i = client; Date.now() < end; i += CLIENTS) {
            const name = `set-${String((i * 7) % COUNT).padStart(3, '0')}`;
            const path = paths(name)[i % 4]!;
            const res = await fetch(`http://127.0.0.1:${port}${path}`);
            const text = await res.text();
            asked += 1;
            statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
            if (res.status !== 200 && wrong.length < 20)
              wrong.push(`${path}: ${res.status} ${text.slice(0, 300)}`);
          }
        }),
      );
      clearInterval(sampler);

      // Memory after the load: each process idle, its sources closed after --idle-close, its heap collected. The
      // load leaves work behind it (the space groups of the side tables it opened, found one table at a time), so
      // memory is sampled until it is back, for 40 s at most.
      const settled = Date.now();
      let after = new Map<number, number>();
      do {
        await new Promise((r) => setTimeout(r, 2_000));
        after = new Map(pids.map((pid) => [pid, residentMb(pid)]));
      } while (Date.now() - settled < 40_000 && pids.some((pid) => after.get(pid)! > before.get(pid)! * 1.5));
      const report = pids.map((pid) => ({
        pid,
        files: { before: filesBefore.get(pid), most: mostFiles.get(pid), after: openFiles(pid) },
        mb: {
          before: Math.round(before.get(pid)!),
          most: Math.round(mostMb.get(pid)!),
          after: Math.round(after.get(pid)!),
        },
      }));
      const settledMs = Date.now() - settled;
      console.log(JSON.stringify({ asked, statuses: Object.fromEntries(statuses), report, settledMs }));

      expect(wrong).toEqual([]);
      expect(serving.stderr()).not.toMatch(/removed/);
      for (const pid of pids) {
        // What the process had open before, the budget, and the sockets and files of requests under way (a side
        // table's build reads its source and writes its parts in threads of its own; its symmetry pass's files are
        // in the budget).
        expect(mostFiles.get(pid)!).toBeLessThanOrEqual(filesBefore.get(pid)! + BUDGET + 28);
        expect(after.get(pid)!).toBeLessThanOrEqual(before.get(pid)! * 1.5);
      }
      const metrics = await fetch(`http://127.0.0.1:${port}/metrics`).then((r) => r.text());
      expect(metrics).toMatch(/^quarry_open_files_budget \d+/m);
      expect(metrics).toMatch(/^quarry_open_files_held \d+/m);
      // More sources were asked than fit: the least recently used were closed for room, and answered all the same.
      expect(Number(/^quarry_open_files_closed_for_room (\d+)/m.exec(metrics)?.[1])).toBeGreaterThan(0);
    },
  );
});
