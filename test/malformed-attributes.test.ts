/* eslint-disable @typescript-eslint/no-explicit-any -- JSON answers are read field by field */
/**
 * Nodes whose attributes have shapes AiiDA never writes (a structure's kinds as an object, a cell of two
 * vectors or a string, a site without a position, attributes that are a list; bands, k-points, trajectories
 * and CIFs alike) are answered on every endpoint that reads them with a 4xx that says what is wrong, or are
 * left out of OPTIMADE, never with a 500; an intact structure beside them is served as before.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/server/app.js';
import { openArchive, type StorageBackend } from '../src/storage/index.js';
import { formatsOf } from '../src/domain/download-formats.js';
import { tempDir } from './helpers.js';
import {
  hostileArchive,
  hostileNode,
  silicon,
  STRUCTURE,
  type HostileNode,
} from './support/hostile-structures.js';

const si = silicon() as any;
const kind = si.kinds[0];
const site = si.sites[0];
/** A structure with `changes` over diamond silicon's attributes. */
const structure = (changes: Record<string, unknown>) => ({ ...si, ...changes });

const STRUCTURES: [string, unknown][] = [
  ['kinds an object', structure({ kinds: { Si: kind } })],
  ['cell of two short vectors', structure({ cell: [[1, 2], [3]] })],
  ['cell a string', structure({ cell: 'abc' })],
  [
    'cell of strings',
    structure({
      cell: [
        ['1', 0, 0],
        [0, 1, 0],
        [0, 0, 1],
      ],
    }),
  ],
  ['no cell', structure({ cell: undefined })],
  ['a site without position', structure({ sites: [{ kind_name: 'Si' }] })],
  ['a position "x"', structure({ sites: [{ kind_name: 'Si', position: 'x' }] })],
  ['a position of two numbers', structure({ sites: [{ kind_name: 'Si', position: [0, 0] }] })],
  ['a site a number', structure({ sites: [1] })],
  ['a site without kind name', structure({ sites: [{ position: [0, 0, 0] }] })],
  ['cell, sites and kinds null', structure({ cell: null, sites: null, kinds: null })],
  ['sites an object', structure({ sites: { 0: site } })],
  ['a kind without weights', structure({ kinds: [{ name: 'Si', symbols: ['Si'] }] })],
  ['a kind whose symbols are a string', structure({ kinds: [{ ...kind, symbols: 'Si' }] })],
  ['a kind whose mass is a string', structure({ kinds: [{ ...kind, mass: 'heavy' }] })],
  ['a kind null', structure({ kinds: [null] })],
  ['attributes a list', '[1, 2, 3]'],
  ['attributes a number', '7'],
];

const BANDS = 'data.core.array.bands.BandsData.';
const KPOINTS = 'data.core.array.kpoints.KpointsData.';
const TRAJECTORY = 'data.core.array.trajectory.TrajectoryData.';
const CIF = 'data.core.cif.CifData.';
const OTHERS: [string, string, unknown][] = [
  [
    'bands: a cell of two vectors and labels an object',
    BANDS,
    { cell: [[1, 2], [3]], labels: { a: 1 }, label_numbers: 3 },
  ],
  ['bands: attributes a list', BANDS, '[1]'],
  [
    'k-points: a mesh of strings and a cell a string',
    KPOINTS,
    { mesh: ['a', 'b'], offset: 'x', cell: 'abc' },
  ],
  ['k-points: a cell of two vectors', KPOINTS, { mesh: [2, 2, 2], offset: [0, 0, 0], cell: [[1, 2], [3]] }],
  [
    'k-points: labels without numbers',
    KPOINTS,
    { 'array|kpoints': [2, 3], labels: ['G'], label_numbers: null },
  ],
  ['k-points: attributes a list', KPOINTS, '[]'],
  [
    'trajectory: symbols an object, pbc a number',
    TRAJECTORY,
    { symbols: { a: 1 }, pbc: 3, 'array|cells': [1, 3, 3] },
  ],
  ['trajectory: attributes a list', TRAJECTORY, '[]'],
  ['cif: a filename an object', CIF, { filename: { a: 1 } }],
  ['cif: attributes a list', CIF, '[]'],
];

describe('nodes with malformed attributes', () => {
  let app: FastifyInstance;
  let backend: StorageBackend;
  const nodes: [string, HostileNode][] = [
    ...STRUCTURES.map(([what, a]): [string, HostileNode] => [what, hostileNode(STRUCTURE, a)]),
    ...OTHERS.map(([what, type, a]): [string, HostileNode] => [what, hostileNode(type, a)]),
  ];
  const intact = hostileNode(STRUCTURE, si);

  beforeAll(async () => {
    backend = await openArchive(await hostileArchive(tempDir(), [intact, ...nodes.map(([, n]) => n)]), {
      cacheDir: tempDir(),
    });
    app = await buildApp({ backends: [backend] });
  });
  afterAll(async () => {
    await app?.close();
    await backend?.close();
  });

  const get = async (url: string) => {
    const answer = await app.inject({ url });
    return { status: answer.statusCode, body: answer.body };
  };

  it.each(nodes)('%s: a 4xx saying what is wrong on every endpoint, never a 500', async (what, node) => {
    const base = `/api/v4/nodes/${node.uuid}`;
    const urls = [
      base,
      `${base}/contents/attributes`,
      `${base}/contents/derived_properties`,
      `${base}/links/tree`,
      `${base}/repo/list`,
      ...(formatsOf(node.nodeType) ?? []).map((f) => `${base}/download?download_format=${f}`),
    ];
    for (const url of urls) {
      const answer = await get(url);
      expect(answer.status, `${what}: ${url}: ${answer.body}`).toBeLessThan(500);
      if (answer.status >= 400) {
        const message = JSON.parse(answer.body).message as string;
        expect(message, url).not.toMatch(/Cannot read|is not a function|undefined|TypeError|is not iterable/);
        expect(message.length, url).toBeLessThan(500);
      }
    }
    if (node.nodeType === STRUCTURE) {
      const derived = await get(`${base}/contents/derived_properties`);
      expect(derived.status).toBe(400);
      expect(JSON.parse(derived.body).message).toMatch(/attributes are not a structure AiiDA stores: /);
    }
  });

  it('leaves the malformed structures out of OPTIMADE and serves the intact one', async () => {
    const listing = await get('/optimade/v1/structures?response_fields=nsites,chemical_formula_reduced');
    expect(listing.status, listing.body).toBe(200);
    expect(JSON.parse(listing.body).data.map((e: any) => e.id)).toEqual([intact.uuid]);
    for (const [, node] of nodes.filter(([, n]) => n.nodeType === STRUCTURE))
      expect((await get(`/optimade/v1/structures/${node.uuid}`)).status).toBe(404);
    const derived = JSON.parse((await get(`/api/v4/nodes/${intact.uuid}/contents/derived_properties`)).body);
    expect(derived.data.derived_properties.formula).toBe('Si8');
    for (const format of ['cif', 'xsf', 'xyz', 'chemdoodle'])
      expect((await get(`/api/v4/nodes/${intact.uuid}/download?download_format=${format}`)).status).toBe(200);
  });
});
