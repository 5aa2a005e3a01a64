/* eslint-disable @typescript-eslint/no-explicit-any -- JSON answers are read field by field */
/**
 * The space groups OPTIMADE serves (symmetry.ts, found once per structure at the side table's build) against
 * the explorer's own computation of every conformance structure (its cell from the node's attributes, the same
 * library call at its default tolerance) and against the group each CifData file states; filters and sorts on
 * them; null where no group is given.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as moyo from '@spglib/moyo-wasm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { richFile } from './conformance/corpus.js';
import { allEntries, optimadeApp } from './optimade-support.js';
import { crystalFromAttributes } from '../web/src/by-type/logic/structure.js';
import { symmetryCell } from '../web/src/by-type/logic/symmetry.js';
import { SYMMETRY_TOLERANCE, SYMOP } from '../src/optimade/symmetry.js';

const FIELDS = [
  'nperiodic_dimensions',
  'structure_features',
  'nsites',
  'fractional_site_positions',
  'cartesian_site_positions',
  'lattice_vectors',
  'space_group_it_number',
  'space_group_symbol_hermann_mauguin',
  'space_group_symbol_hall',
  'space_group_symmetry_operations_xyz',
  'wyckoff_positions',
].join(',');

describe('OPTIMADE space groups on rich.aiida', () => {
  let served: Awaited<ReturnType<typeof optimadeApp>>;
  let all: any[];
  const v4 = async (url: string) => (await served.app.inject({ url: `/api/v4${url}` })).body;

  beforeAll(async () => {
    served = await optimadeApp(richFile('rich.aiida'));
    all = await allEntries(served.get, `page_limit=500&response_fields=${FIELDS}`);
    const require = createRequire(import.meta.url);
    moyo.initSync({ module: readFileSync(require.resolve('@spglib/moyo-wasm/moyo_wasm_bg.wasm')) });
  });
  afterAll(async () => served?.close());

  it("uses the explorer's default tolerance", () => {
    const view = readFileSync(new URL('../web/src/by-type/views/Symmetry.tsx', import.meta.url), 'utf8');
    expect(Number(/DEFAULT_TOLERANCE = ([\d.e-]+)/.exec(view)?.[1])).toBe(SYMMETRY_TOLERANCE);
  });

  it('agrees with the explorer on every structure, and is null where no group is given', async () => {
    let compared = 0;
    for (const e of all) {
      const a = e.attributes;
      const node = JSON.parse(await v4(`/nodes/${e.id}`)).data.nodes[0];
      if (a.nperiodic_dimensions !== 3 || a.structure_features.includes('disorder')) {
        expect(a.space_group_it_number, e.id).toBeNull();
        expect(a.space_group_symmetry_operations_xyz, e.id).toBeNull();
        expect(a.wyckoff_positions, e.id).toBeNull();
        continue;
      }
      if (!node.node_type.startsWith('data.core.structure.')) continue;
      const attributes = JSON.parse(await v4(`/nodes/${e.id}/contents/attributes`)).data.attributes;
      const explorer = moyo.analyze_cell(
        JSON.stringify(symmetryCell(crystalFromAttributes(attributes), 'kind')),
        SYMMETRY_TOLERANCE,
        'Standard',
      );
      expect(a.space_group_it_number, e.id).toBe(explorer.number);
      expect(a.space_group_symbol_hermann_mauguin, e.id).toBe(
        moyo.space_group_type(explorer.number).hm_short,
      );
      expect(a.space_group_symbol_hall, e.id).toBe(moyo.hall_symbol_entry(explorer.hall_number).hall_symbol);
      expect(a.wyckoff_positions, e.id).toEqual(explorer.wyckoffs);
      compared += 1;
    }
    expect(compared).toBeGreaterThan(20);
    // The conformance data has cubic, hexagonal and triclinic structures at least.
    const groups = new Set(all.map((e) => e.attributes.space_group_it_number));
    expect([...groups].some((n) => n >= 195)).toBe(true);
    expect(groups.has(1)).toBe(true);
  });

  it('agrees with the space group each CifData file states', async () => {
    let stated = 0;
    for (const e of all) {
      const node = JSON.parse(await v4(`/nodes/${e.id}`)).data.nodes[0];
      if (!node.node_type.startsWith('data.core.cif.')) continue;
      const cif = await v4(`/nodes/${e.id}/download?download_format=cif`);
      const number = /^_(?:space_group_IT_number|symmetry_Int_Tables_number)\s+(\d+)/m.exec(cif)?.[1];
      // A file in P1 lists every atom of the cell, whose symmetry may be higher than the setting it names.
      if (number === undefined || number === '1') continue;
      expect(e.attributes.space_group_it_number, e.id).toBe(Number(number));
      stated += 1;
    }
    expect(stated).toBeGreaterThan(0);
  });

  it('gives operations in the specification’s form that map the structure onto itself', () => {
    let checked = 0;
    for (const e of all) {
      const { space_group_symmetry_operations_xyz: ops, fractional_site_positions: f } = e.attributes;
      if (ops === null) continue;
      expect(ops).toContain('x,y,z');
      for (const op of ops) {
        expect(op).toMatch(SYMOP);
        // Each operation takes every site onto a site (modulo whole cells), at about the tolerance it was found with.
        for (const site of f) {
          const image = applyXyz(op, site);
          const hit = f.some((p: number[]) =>
            p.every((x: number, i: number) => {
              const d = x - image[i]!;
              return Math.abs(d - Math.round(d)) < 1e-3;
            }),
          );
          expect(hit, `${e.id} ${op}`).toBe(true);
        }
      }
      checked += 1;
    }
    expect(checked).toBeGreaterThan(10);
  });

  it('filters and sorts on space_group_it_number and the symbols', async () => {
    const ids = async (query: string) =>
      (await allEntries(served.get, `page_limit=500&${query}`)).map((e) => e.id);
    const where = (test: (n: number | null) => boolean) =>
      all.filter((e) => test(e.attributes.space_group_it_number)).map((e) => e.id);
    const f = (filter: string) => `filter=${encodeURIComponent(filter)}`;
    expect((await ids(f('space_group_it_number=227'))).sort()).toEqual(where((n) => n === 227).sort());
    expect((await ids(f('space_group_it_number>=195'))).sort()).toEqual(
      where((n) => n !== null && n >= 195).sort(),
    );
    expect((await ids(f('NOT space_group_it_number>=195'))).sort()).toEqual(
      where((n) => n !== null && n < 195).sort(),
    );
    const hm = all.find((e) => e.attributes.space_group_it_number === 227)?.attributes
      .space_group_symbol_hermann_mauguin;
    expect((await ids(f(`space_group_symbol_hermann_mauguin="${hm}"`))).sort()).toEqual(
      where((n) => n === 227).sort(),
    );
    const sorted = await allEntries(
      served.get,
      `page_limit=7&sort=-space_group_it_number&${f('space_group_it_number IS KNOWN')}&response_fields=space_group_it_number`,
    );
    const numbers = sorted.map((e) => e.attributes.space_group_it_number);
    expect(numbers).toEqual([...numbers].sort((a, b) => b - a));
    expect(numbers).toHaveLength(where((n) => n !== null).length);
  });

  it('serves the table before its space groups are found, and asks for them to wait until they are', async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    // Requests wait for a pass 1.5 s at most: then they are answered 503.
    const held = await optimadeApp(richFile('rich.aiida'), {
      optimadeSymmetryGate: () => gate,
      queryTimeoutMs: 1_500,
    });
    try {
      const ask = async (query: string, tries = 40) => {
        // A pass may take longer than a request waits: asked again, as a client told 503 would.
        for (let i = 1; ; i++) {
          const r = await held.get(`/optimade/v1/structures${query}`);
          if (r.status !== 503 || i === tries) return r;
        }
      };
      const plain = await ask('?page_limit=500');
      expect(plain.status).toBe(200);
      // A default listing leaves the pending properties out (they are optional); its answer is not tagged.
      const entries = plain.json().data;
      expect(entries).toHaveLength(all.length);
      for (const e of entries) {
        expect(e.attributes).toHaveProperty('nsites');
        expect(e.attributes).not.toHaveProperty('space_group_it_number');
        expect(e.attributes).not.toHaveProperty('wyckoff_positions');
      }
      expect(plain.headers.etag).toBeUndefined();
      const nsites = await ask(`?page_limit=500&filter=${encodeURIComponent('nsites>=2')}&sort=-nsites`);
      expect(nsites.status).toBe(200);
      expect(
        nsites
          .json()
          .data.map((e: any) => e.id)
          .sort(),
      ).toEqual(
        all
          .filter((e) => e.attributes.nsites >= 2)
          .map((e) => e.id)
          .sort(),
      );
      const first = all[0].id;
      const waiting = await Promise.all(
        [
          `?filter=${encodeURIComponent('space_group_it_number>=195')}`,
          `?filter=${encodeURIComponent('NOT (nsites=1 OR wyckoff_positions IS KNOWN)')}`,
          '?sort=space_group_symbol_hall',
          '?response_fields=nsites,space_group_symmetry_operations_xyz',
          `/${first}?response_fields=space_group_it_number`,
        ].map((q) => held.get(`/optimade/v1/structures${q}`)),
      );
      for (const r of waiting) {
        expect(r.status).toBe(503);
        expect(Number(r.headers['retry-after'])).toBeGreaterThan(0);
        const [error] = r.json().errors;
        expect(error.status).toBe('503');
        expect(error.detail).toMatch(
          /space groups of this source are still being computed \(0 of \d+ structures/,
        );
      }
      // A single entry without response_fields is served, without them.
      const one = await held.get(`/optimade/v1/structures/${first}`);
      expect(one.status).toBe(200);
      expect(one.json().data.attributes).not.toHaveProperty('space_group_it_number');

      open();
      const found = await ask(`?page_limit=500&filter=${encodeURIComponent('space_group_it_number>=195')}`);
      expect(found.status).toBe(200);
      expect(
        found
          .json()
          .data.map((e: any) => e.id)
          .sort(),
      ).toEqual(
        all
          .filter((e) => e.attributes.space_group_it_number >= 195)
          .map((e) => e.id)
          .sort(),
      );
      const after = await held.get('/optimade/v1/structures?page_limit=500');
      expect(after.headers.etag).toBeDefined();
      const byId = new Map(all.map((e) => [e.id, e.attributes]));
      for (const e of after.json().data) {
        expect(e.attributes.space_group_it_number, e.id).toBe(byId.get(e.id).space_group_it_number);
        expect(e.attributes.wyckoff_positions, e.id).toEqual(byId.get(e.id).wyckoff_positions);
      }
    } finally {
      open();
      await held.close();
    }
  });
});

/** An `x,y,z` operation applied to a fractional position. */
function applyXyz(op: string, p: number[]): number[] {
  return op.split(',').map((term) => {
    let value = 0;
    for (const [, sign, what] of term.matchAll(/([+-]?)(x|y|z|\d+\/\d+)/g)) {
      const s = sign === '-' ? -1 : 1;
      if (what === 'x' || what === 'y' || what === 'z') value += s * p['xyz'.indexOf(what)]!;
      else {
        const [n, d] = what!.split('/').map(Number);
        value += (s * n!) / d!;
      }
    }
    return value;
  });
}
