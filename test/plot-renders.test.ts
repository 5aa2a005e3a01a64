/**
 * Heavy renders off the event loop: PNG plots are drawn by worker threads, no more at once than the pool's
 * size, within the request's deadline; an archive's exports are drawn once and kept; single-node GETs are
 * answered while a plot is being drawn.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { plotDict } from '../src/domain/formats/bands-matplotlib.js';
import { figureOf, figureSvg } from '../src/domain/formats/bands-plot.js';
import { readNpy } from '../src/domain/formats/npy.js';
import { figureFonts, pngWorkers, PngWorkers } from '../src/domain/formats/png-workers.js';
import { npy } from '../src/generate/files.js';
import { exportCache } from '../src/rest/download.js';
import { BytesKept } from '../src/util/bytes-kept.js';
import { QueryTimeoutError, ServerBusyError } from '../src/storage/types.js';
import { appOn, smallArchive } from './helpers.js';

const svg = figureSvg(
  figureOf(
    plotDict(
      {
        uuid: 'u',
        label: '',
        bands: readNpy(npy([-2.8, 0.5, -1.2, 0.3, 0.6, 5.7, 1, 2], [4, 2])),
        kpoints: readNpy(npy([0, 0, 0, 0.25, 0, 0, 0.5, 0, 0, 0.5, 0.25, 0], [4, 3])),
        labels: [[0, 'GAMMA']],
      },
      'eV',
    ),
  ),
);
const isPng = (b: Buffer) => b.subarray(1, 4).toString() === 'PNG';

describe('PNG workers', () => {
  it('draws in at most `size` workers at once, every render answered', async () => {
    const workers = new PngWorkers(2);
    try {
      const pngs = await Promise.all(
        Array.from({ length: 6 }, () => workers.render(svg, 400, Date.now() + 30_000)),
      );
      expect(pngs.every(isPng)).toBe(true);
      expect(workers.stats).toEqual({ renders: 6, mostAtOnce: 2 });
    } finally {
      await workers.close();
    }
  }, 60_000);

  it('refuses at once a render that could not start before its deadline, and stops one that runs past it', async () => {
    const workers = new PngWorkers(1);
    try {
      const first = workers.render(svg, 4000, Date.now() + 30_000);
      const refused = await workers.render(svg, 400, Date.now() + 20).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(ServerBusyError);
      expect((refused as ServerBusyError).message).toMatch(/busy drawing plots/);
      expect(isPng(await first)).toBe(true);
      // A render far larger than its 30 ms allow.
      const stopped = await workers.render(svg, 20_000, Date.now() + 30).catch((e: unknown) => e);
      expect(stopped).toBeInstanceOf(QueryTimeoutError);
      // The worker that was stopped is replaced at the next render.
      expect(isPng(await workers.render(svg, 400, Date.now() + 30_000))).toBe(true);
    } finally {
      await workers.close();
    }
  }, 60_000);

  it("finds the figures' font once, as files", () => {
    expect(figureFonts()).toBe(figureFonts());
  });
});

describe('export cache', () => {
  it('keeps answers up to its bytes, forgetting the least recently used', () => {
    const cache = new BytesKept<{ content: Buffer }>(8_000, (v) => v.content.length);
    const names = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
    for (const name of names) cache.set(name, { content: Buffer.alloc(999) });
    expect(cache.size).toEqual({ entries: 8, bytes: 8_000 });
    expect(cache.get('a')).toBeDefined();
    cache.set('i', { content: Buffer.alloc(999) });
    // 'b' was the least recently used once 'a' was read.
    expect(['a', 'b', 'i'].map((k) => cache.get(k) !== undefined)).toEqual([true, false, true]);
    expect(cache.size.bytes).toBeLessThanOrEqual(8_000);
    // Larger than an eighth of the whole: not kept.
    cache.set('huge', { content: Buffer.alloc(1_001) });
    expect(cache.get('huge')).toBeUndefined();
  });
});

describe('plot downloads over HTTP', () => {
  let served: Awaited<ReturnType<typeof appOn>>;
  let bands: string;
  let single: string;
  beforeAll(async () => {
    served = await appOn(await smallArchive(1500, 3));
    const list = await served.app.inject(
      `/api/v4/nodes/?node_type="data.core.array.bands.BandsData."&limit=1`,
    );
    bands = list.json().data.nodes[0].uuid;
    const other = await served.app.inject(`/api/v4/nodes/?node_type="data.core.int.Int."&limit=1`);
    single = other.json().data.nodes[0].uuid;
  }, 60_000);
  afterAll(async () => served?.close());

  it("answers single-node GETs while a PNG is drawn, and draws an archive's PNG once", async () => {
    const { app } = served;
    const before = pngWorkers().stats.renders;
    const order: string[] = [];
    const download = app
      .inject(`/api/v4/nodes/${bands}/download/?download_format=mpl_png`)
      .then((r) => (order.push('png'), r));
    // Once the download has reached its render.
    while (pngWorkers().stats.mostAtOnce === 0) await new Promise((r) => setTimeout(r, 1));
    for (let i = 0; i < 3; i++) {
      const node = await app.inject(`/api/v4/nodes/${single}/`);
      expect(node.statusCode).toBe(200);
      order.push('node');
    }
    const png = await download;
    expect(png.statusCode).toBe(200);
    expect(isPng(png.rawPayload)).toBe(true);
    expect(order).toEqual(['node', 'node', 'node', 'png']);
    // Asked again: the same bytes, not drawn again.
    const again = await app.inject(`/api/v4/nodes/${bands}/download/?download_format=mpl_png`);
    expect(again.rawPayload.equals(png.rawPayload)).toBe(true);
    expect(pngWorkers().stats.renders).toBe(before + 1);
    expect(exportCache.size.entries).toBeGreaterThanOrEqual(1);
  }, 60_000);
});
