/**
 * Odd values served exactly, on every storage: whole-number floats and long integers in attributes, extras,
 * projections and QueryBuilder rows; arrays with NaN and infinities as valid JSON; structures with zero cell
 * vectors exported with finite coordinates; an empty repository file with X-Total-Count.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/server/app.js';
import { startCluster, type Cluster } from '../src/bench/postgres-cluster.js';
import { withPostgres } from './support/postgres.js';
import { openArchive, type StorageBackend } from '../src/storage/index.js';
import { openPostgresUrl, openSqliteDos } from '../src/storage/profiles.js';
import { richFile } from './conformance/corpus.js';
import { tempDir } from './helpers.js';
import { ODD, oddArchive, oddContainer, oddPostgresInsert, oddSqliteDos } from './support/odd-data.js';

const dump = richFile('rich-psql.sql.gz');
let cluster: Cluster | undefined;

type Storage = 'archive' | 'sqlite_dos' | 'postgres';
const storages: [Storage, () => Promise<StorageBackend>][] = [
  ['archive', async () => openArchive(await oddArchive(tempDir()), { cacheDir: tempDir() })],
  ['sqlite_dos', async () => openSqliteDos(oddSqliteDos(tempDir()), { name: 'odd' })],
];
if (withPostgres) {
  storages.push([
    'postgres',
    async () => {
      cluster = await startCluster();
      // The real core.psql_dos schema, from the recorded profile; the odd nodes are added to it.
      cluster.restore('odd', dump);
      cluster.sql('odd', oddPostgresInsert());
      const repository = join(tempDir(), 'repository');
      mkdirSync(repository);
      oddContainer(join(repository, 'container'));
      return openPostgresUrl(cluster.url('odd'), repository, { name: 'odd' });
    },
  ]);
}

afterAll(() => cluster?.destroy());

describe.each(storages)('odd values on %s', (storage, open) => {
  let app: FastifyInstance;
  let backend: StorageBackend;
  beforeAll(async () => {
    backend = await open();
    app = await buildApp({ backends: [backend] });
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await backend?.close();
  });

  const get = async (url: string) => {
    const res = await app.inject(`/api/v4${url}`);
    expect(res.statusCode, res.body).toBe(200);
    return res;
  };
  const postgres = storage === 'postgres';
  // PostgreSQL's numeric has no negative zero, and keeps 1e+16 as the integer it equals: Python reads an int.
  const zero = postgres ? '0.0' : '-0.0';
  const huge = postgres ? '10000000000000000' : '1e+16';

  /**
   * Every `"key":value` text appears in the answer as written (values read from a text are written as the
   * stored text, with its spaces: compared without the spaces between tokens).
   */
  const expectTexts = (body: string, texts: string[]) => {
    const compact = body.replace(/"(?:[^"\\]|\\.)*"|\s+/g, (m) => (m.startsWith('"') ? m : ''));
    for (const text of texts) expect(compact, text).toContain(text);
  };
  const storedNumbers = [
    '"ecutrho":240.0',
    '"ecutwfc":60',
    '"big":12345678901234567890',
    `"zero":${zero}`,
    `"huge":${huge}`,
    '"list":[1.0,2.5,3]',
    '"x":0.0',
    '"y":1.5',
  ];

  it('answers attributes and extras with the number types stored', async () => {
    const dict = ODD.dict!.uuid;
    expectTexts((await get(`/nodes/${dict}/contents/attributes/`)).body, storedNumbers);
    const some = JSON.parse(
      (await get(`/nodes/${dict}/contents/attributes/?attributes_filter=ecutrho`)).body,
    );
    expect(some.data.attributes).toEqual({ ecutrho: 240 });
    expectTexts((await get(`/nodes/${dict}/contents/attributes/?attributes_filter=ecutrho`)).body, [
      '"attributes":{"ecutrho":240.0}',
    ]);
    expectTexts((await get(`/nodes/${dict}/contents/extras/`)).body, ['"weight":3.0', '"count":2']);
    const parts = await get(`/nodes/${dict}/contents/attributes/?attributes_filter=nested,list`);
    expectTexts(parts.body, ['"nested":{"x":0.0,"y":1.5}', '"list":[1.0,2.5,3]']);
  });

  it('keeps them in node listings, whole or projected by key', async () => {
    const base = `/nodes/?uuid="${ODD.dict!.uuid}"&attributes=true`;
    expectTexts((await get(base)).body, storedNumbers);
    expectTexts((await get(`${base}&attributes_filter=ecutrho,big,huge`)).body, [
      `"attributes":{"ecutrho":240.0,"big":12345678901234567890,"huge":${huge}}`,
    ]);
    expectTexts((await get(`/nodes/?uuid="${ODD.dict!.uuid}"&extras=true&extras_filter=weight`)).body, [
      '"extras":{"weight":3.0}',
    ]);
  });

  it('keeps them in QueryBuilder rows, projected whole or by key', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/api/v4/querybuilder/',
      payload: {
        path: [{ entity_type: 'data.core.dict.Dict.', orm_base: 'node', tag: 'd' }],
        filters: { d: { uuid: { '==': ODD.dict!.uuid } } },
        project: { d: ['attributes.ecutrho', 'attributes.big', 'attributes.nested', 'extras.weight', 'id'] },
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    expectTexts(res.body, [
      '"attributes.ecutrho":240.0',
      '"attributes.big":12345678901234567890',
      '"attributes.nested":{"x":0.0,"y":1.5}',
      '"extras.weight":3.0',
    ]);
    // A value cast to a float in the query is a float, whole or not.
    const cast = await app.inject({
      method: 'POST',
      url: '/api/v4/querybuilder/',
      payload: {
        path: [{ entity_type: 'data.core.dict.Dict.', orm_base: 'node', tag: 'd' }],
        filters: { d: { uuid: { '==': ODD.dict!.uuid } } },
        project: {
          d: [{ 'attributes.ecutwfc': { cast: 'f' } }, { 'attributes.nested.y': { cast: 'f' } }],
        },
      },
    });
    expect(cast.statusCode, cast.body).toBe(200);
    expectTexts(cast.body, ['"attributes.ecutwfc":60.0', '"attributes.nested.y":1.5']);
    // Filters still compare the stored numbers.
    const matching = async (value: number) => {
      const filtered = await app.inject({
        method: 'POST',
        url: '/api/v4/querybuilder/',
        payload: {
          path: [{ entity_type: 'data.core.dict.Dict.', orm_base: 'node', tag: 'd' }],
          filters: { d: { uuid: { '==': ODD.dict!.uuid }, 'attributes.ecutrho': { '==': value } } },
          project: { d: ['uuid'] },
        },
      });
      return JSON.parse(filtered.body).data.d ?? [];
    };
    expect(await matching(240)).toEqual([{ uuid: ODD.dict!.uuid }]);
    expect(await matching(241)).toEqual([]);
  });

  it('exports arrays holding NaN and infinities as valid JSON, with null', async () => {
    const res = await get(`/nodes/${ODD.array!.uuid}/download/?download_format=json`);
    const text = res.rawPayload.toString('utf8');
    const json = JSON.parse(text) as Record<string, unknown>;
    expect(json.values).toEqual([1, null, null, null, 2.5]);
    expect(json.ints).toEqual([1, 2]);
    expect(text).toContain('"values": [1.0, null, null, null, 2.5]');
    expect(text).toContain('"ints": [1, 2]');
  });

  const cifSites = (cif: string) =>
    cif
      .split('\n')
      .filter((l) => /^\s+[A-Z][a-z]?\d+\s/.test(l))
      .map((l) => l.trim().split(/\s+/));
  const cifValue = (cif: string, tag: string) => new RegExp(`^${tag}\\s+(\\S+)`, 'm').exec(cif)?.[1];

  it('exports structures with zero cell vectors with finite fractional coordinates', async () => {
    const cif = async (node: string) =>
      (await get(`/nodes/${node}/download/?download_format=cif`)).rawPayload.toString('utf8');
    const molecule = await cif(ODD.molecule!.uuid);
    expect(molecule).not.toMatch(/nan|inf/i);
    // No cell at all: the unit cell, fractional coordinates are the cartesian ones.
    expect(cifSites(molecule)).toEqual([
      ['O1', '0.1', '-0.2', '0.3', 'O'],
      ['H1', '0.0', '0.0', '0.74', 'H'],
    ]);
    expect(cifValue(molecule, '_cell_angle_alpha')).toBe('90.0');
    expect(cifValue(molecule, '_cell_length_a')).toBe('0.0');
    // A wire along z: x and y along the unit vectors numpy's SVD completes with.
    expect(cifSites(await cif(ODD.wire!.uuid))).toEqual([['C1', '1.0', '2.0', '0.5', 'C']]);
    // A slab without c: c is the unit normal of the a-b plane.
    const slab = await cif(ODD.slab!.uuid);
    expect(cifSites(slab)).toEqual([['Mo1', '0.5', '0.5', '7.0', 'Mo']]);
    expect(cifValue(slab, '_cell_angle_alpha')).toBe('90.0');
    expect(cifValue(slab, '_cell_angle_gamma')).toBe('90.0');
    for (const format of ['xsf', 'xyz', 'chemdoodle']) {
      const text = (await get(`/nodes/${ODD.wire!.uuid}/download/?download_format=${format}`)).body;
      expect(text, format).not.toMatch(/nan|inf/i);
    }
  });

  it('writes computed floats as floats in derived properties', async () => {
    const slab = (await get(`/nodes/${ODD.slab!.uuid}/contents/derived_properties/`)).body;
    expect(slab).toContain('"dimensionality":{"dim":2,"label":"surface","value":12.0}');
    const mesh = (await get(`/nodes/${ODD.mesh!.uuid}/contents/derived_properties/`)).body;
    expectTexts(mesh, [
      '"mesh":[2,2,2]',
      '"offset":[0.0,0.0,0.0]',
      '"explicit_kpoints_rel":[[0.0,0.0,0.0],[0.0,0.0,0.5],',
    ]);
    const molecule = (await get(`/nodes/${ODD.molecule!.uuid}/contents/derived_properties/`)).body;
    expect(molecule).toContain('"dimensionality":{"dim":0,"label":"","value":0}');
  });

  it('answers an empty file as an empty download with X-Total-Count, a file with content without', async () => {
    const url = (name: string) => `/nodes/${ODD.folder!.uuid}/repo/contents/?filename="${name}"`;
    const empty = await get(url('empty.txt'));
    expect(empty.rawPayload.length).toBe(0);
    expect(empty.headers['content-type']).toBe('application/octet-stream');
    expect(empty.headers['content-disposition']).toBe('attachment; filename="empty.txt"');
    expect(empty.headers['x-total-count']).toBe('1');
    expect(empty.headers['access-control-expose-headers']).toBe('X-Total-Count');
    const full = await get(url('a.txt'));
    expect(full.body).toBe('hi');
    expect(full.headers['x-total-count']).toBeUndefined();
  });
});
