/**
 * The conformance replay of an archive through a source's path (`/<name>/api/v4/`): the recorded requests go to
 * `/<name>/...`, the answers' URLs must name that path, and are then judged as a single source's answers (the
 * recorded ones name no mount).
 */
import type { FastifyInstance, InjectOptions } from 'fastify';
import { expect } from 'vitest';
import { type loadArchiveCase, replayArchive } from '../conformance/replay.js';

export async function replayMounted(
  app: FastifyInstance,
  name: string,
  recorded: NonNullable<ReturnType<typeof loadArchiveCase>>,
) {
  const seen = { urls: 0, links: 0, problems: [] as string[] };
  const mounted = {
    inject: async (options: InjectOptions) => {
      const res = await app.inject({ ...options, url: `/${name}${String(options.url)}` });
      const link = res.headers.link;
      if (typeof link === 'string') {
        seen.links += 1;
        if (!link.startsWith(`<http://localhost:80/${name}/api/v4/`)) seen.problems.push(`Link ${link}`);
        res.headers.link = link.replaceAll(`localhost:80/${name}/`, 'localhost:80/');
      }
      if (String(res.headers['content-type']).startsWith('application/json') && res.body !== '') {
        const json = JSON.parse(res.body) as { url?: string; url_root?: string };
        if (json.url !== undefined) {
          seen.urls += 1;
          if (!json.url.startsWith(`http://localhost:80/${name}/api/v4`))
            seen.problems.push(`url ${json.url}`);
          if (json.url_root !== `http://localhost:80/${name}/`)
            seen.problems.push(`url_root ${json.url_root}`);
        }
        const body = res.body.replaceAll(`http://localhost:80/${name}/`, 'http://localhost:80/');
        Object.assign(res, { body, rawPayload: Buffer.from(body), json: () => JSON.parse(body) });
      }
      return res;
    },
  } as unknown as FastifyInstance;
  const verdicts = await replayArchive(mounted, recorded);
  const failures = verdicts.filter((v) => v.inScope && !v.agree);
  expect(failures.map((f) => `${f.id} [${f.endpoint}]: ${f.problem}`)).toEqual([]);
  expect(seen.problems).toEqual([]);
  expect(seen.urls).toBeGreaterThan(100);
  expect(seen.links).toBeGreaterThan(5);
}
