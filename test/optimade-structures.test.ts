/**
 * Every StructureData of the rich conformance archive as an OPTIMADE entry agrees with what the v4 API of the
 * same server says of the node: its formula and dimensionality (derived_properties), cell, periodicity, sites
 * and kinds (attributes), its pk, label and creating calculation; and the OPTIMADE properties are consistent
 * among themselves as the specification defines them.
 */
/* eslint-disable @typescript-eslint/no-explicit-any -- JSON answers are read field by field */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { structureProperties } from '../src/optimade/structure-entry.js';
import { richFile } from './conformance/corpus.js';
import { allEntries, optimadeApp } from './optimade-support.js';

const RICH = richFile('rich.aiida');

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

/** `Ba2TiO3` -> {Ba: 2, Ti: 1, O: 3}. */
function counts(formula: string): Map<string, number> {
  return new Map([...formula.matchAll(/([A-Z][a-z]*)(\d*)/g)].map((m) => [m[1]!, m[2] ? Number(m[2]) : 1]));
}

describe('structures of rich.aiida against the v4 API', () => {
  let served: Awaited<ReturnType<typeof optimadeApp>>;
  let all: any[];
  /** The entries of StructureData nodes, and of CifData nodes. */
  let entries: any[];
  let cifs: any[];
  const uuidsOf = async (type: string) =>
    (await served.get(`/api/v4/nodes?node_type="${type}"&limit=400`))
      .json()
      .data.nodes.map((n: { uuid: string }) => n.uuid)
      .sort();
  beforeAll(async () => {
    served = await optimadeApp(RICH);
    all = await allEntries(served.get, 'page_limit=17');
    const structures = new Set(await uuidsOf('data.core.structure.StructureData.'));
    entries = all.filter((e) => structures.has(e.id));
    cifs = all.filter((e) => !structures.has(e.id));
  });
  afterAll(async () => served?.close());

  it('lists every StructureData node and every CifData node whose file reads into sites, once', async () => {
    const uuids = await uuidsOf('data.core.structure.StructureData.');
    expect(uuids.length).toBeGreaterThan(50);
    expect(entries.map((e) => e.id).sort()).toEqual(uuids);
    expect(new Set(all.map((e) => e.id)).size).toBe(all.length);
    // rich holds ten CifData nodes, nine in P1 and one of Fd-3m given as its asymmetric unit: all read.
    expect(cifs.map((e) => e.id).sort()).toEqual(await uuidsOf('data.core.cif.CifData.'));
    expect(cifs).toHaveLength(10);
  });

  it("agrees with the v4 API's CIF content for each CifData: its formula, cell and number of sites", async () => {
    for (const entry of cifs) {
      const a = entry.attributes;
      const base = `/api/v4/nodes/${entry.id}`;
      const attrs = (await served.get(`${base}/contents/attributes`)).json().data.attributes;
      const cif = (await served.get(`${base}/download?download_format=cif`)).body;
      const value = (tag: string) => {
        const m = new RegExp(`^${tag}\\s+'?([^\\s']+)`, 'm').exec(cif);
        return m === null ? undefined : Number(m[1]!.replace(/\(\d+\)$/, ''));
      };
      // The lengths of the cell vectors are the file's a, b and c.
      const lengths = a.lattice_vectors.map((v: number[]) => Math.hypot(...v));
      ['_cell_length_a', '_cell_length_b', '_cell_length_c'].forEach((tag, i) =>
        expect(lengths[i], `${entry.id} ${tag}`).toBeCloseTo(value(tag)!, 6),
      );
      // The formula AiiDA read from the file (attributes.formulae, its _chemical_formula_sum) when it has one.
      const sum = (attrs.formulae?.[0] as string | undefined)?.replace(/\s+/g, '');
      if (sum !== undefined) {
        const expected = counts(sum);
        const reduced = counts(a.chemical_formula_reduced);
        const divisor = [...expected.values()].reduce(gcd);
        expect(new Map([...expected].map(([e, n]) => [e, n / divisor])), entry.id).toEqual(reduced);
        // As many sites as the formula has atoms, times the formula units of the cell the file gives.
        const units = value('_cell_formula_units_Z') ?? 1;
        const atoms = [...expected.values()].reduce((x, y) => x + y, 0);
        expect(a.nsites, entry.id).toBe(atoms * units);
      }
      expect(a.nsites).toBe(a.cartesian_site_positions.length);
      expect(a.structure_features).toEqual([]);
      expect(a._quarry_pk).toBe((await served.get(base)).json().data.nodes[0].id);
    }
  });

  it('agrees with derived_properties, attributes, the node and its incoming create link, for each', async () => {
    for (const entry of entries) {
      const a = entry.attributes;
      const base = `/api/v4/nodes/${entry.id}`;
      const derived = (await served.get(`${base}/contents/derived_properties`)).json().data
        .derived_properties;
      const attrs = (await served.get(`${base}/contents/attributes`)).json().data.attributes;
      const node = (await served.get(base)).json().data.nodes[0];
      const incoming = (await served.get(`${base}/links/incoming`)).json().data.incoming;

      expect(a.chemical_formula_descriptive, entry.id).toBe(derived.formula);
      expect(a.nperiodic_dimensions).toBe(derived.dimensionality.dim);
      expect(a.lattice_vectors).toEqual(attrs.cell);
      expect(a.dimension_types).toEqual([attrs.pbc1, attrs.pbc2, attrs.pbc3].map((p) => (p ? 1 : 0)));
      expect(a.cartesian_site_positions).toEqual(attrs.sites.map((s: any) => s.position));
      expect(a.species_at_sites).toEqual(attrs.sites.map((s: any) => s.kind_name));
      expect(a.nsites).toBe(attrs.sites.length);
      expect(a.species.map((s: any) => s.name)).toEqual(attrs.kinds.map((k: any) => k.name));
      for (const [i, kind] of attrs.kinds.entries()) {
        const species = a.species[i];
        expect(species.chemical_symbols.slice(0, kind.symbols.length)).toEqual(kind.symbols);
        expect(species.concentration.slice(0, kind.weights.length)).toEqual(kind.weights);
        const total = species.concentration.reduce((x: number, y: number) => x + y, 0);
        expect(total).toBeCloseTo(1, 9);
        if (species.chemical_symbols.length > kind.symbols.length)
          expect(species.chemical_symbols.at(-1)).toBe('vacancy');
        if (kind.symbols.length === 1 && kind.mass !== undefined) expect(species.mass[0]).toBe(kind.mass);
      }
      expect(a._quarry_pk).toBe(node.id);
      expect(a._quarry_label).toBe(node.label);
      // The v4 API writes mtime to the second (RFC 1123); OPTIMADE keeps the microseconds.
      expect(a.last_modified).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
      expect(Math.floor(Date.parse(a.last_modified) / 1000) * 1000).toBe(Date.parse(node.mtime));
      const creator = incoming.find((l: any) => l.link_type === 'create');
      expect(a._quarry_creator).toBe(creator?.uuid ?? null);
      expect(a._quarry_url).toBe(`http://localhost:80/api/v4/nodes/${entry.id}`);
      expect(a.immutable_id).toBe(entry.id);
    }
  });

  it("keeps the specification's rules between its own properties", () => {
    for (const { attributes: a } of entries) {
      const kinds = new Map(a.species.map((s: any) => [s.name, s]));
      const elements = new Set<string>();
      for (const name of a.species_at_sites)
        for (const symbol of (kinds.get(name) as any).chemical_symbols)
          if (symbol !== 'vacancy' && symbol !== 'X') elements.add(symbol);
      expect(a.elements).toEqual([...elements].sort());
      expect(a.nelements).toBe(a.elements.length);
      expect(a.elements_ratios).toHaveLength(a.nelements);
      expect(a.elements_ratios.reduce((x: number, y: number) => x + y, 0)).toBeCloseTo(1, 12);
      const disorder = a.species.some((s: any) => s.chemical_symbols.length > 1);
      expect(a.structure_features).toEqual(disorder ? ['disorder'] : []);
      const reduced = counts(a.chemical_formula_reduced);
      expect([...reduced.keys()]).toEqual(a.elements);
      const proportions = [...reduced.values()];
      expect(proportions.reduce(gcd)).toBe(1);
      // The anonymous formula is the reduced one's proportions, largest first.
      const anonymous = [...a.chemical_formula_anonymous.matchAll(/([A-Z][a-z]*)(\d*)/g)].map((m: any) =>
        m[2] ? Number(m[2]) : 1,
      );
      expect(anonymous).toEqual([...proportions].sort((x, y) => y - x));
      if (!disorder) {
        // Whole atoms: the Hill formula counts the cell's sites, and reduces to the reduced formula.
        const hill = counts(a.chemical_formula_hill);
        expect([...hill.values()].reduce((x, y) => x + y, 0)).toBe(a.nsites);
        const divisor = [...hill.values()].reduce(gcd);
        for (const [symbol, n] of hill) expect(reduced.get(symbol)).toBe(n / divisor);
        a.elements.forEach((symbol: string, i: number) =>
          expect(a.elements_ratios[i]).toBeCloseTo(hill.get(symbol)! / a.nsites, 12),
        );
      } else {
        expect(a.chemical_formula_hill).toBeNull();
      }
    }
  });

  it('includes disordered, molecular, 1D and 2D structures (the fixture covers the cases)', () => {
    const features = entries.map((e) => e.attributes);
    expect(features.some((a) => a.structure_features.includes('disorder'))).toBe(true);
    expect(new Set(features.map((a) => a.nperiodic_dimensions))).toEqual(new Set([0, 1, 2, 3]));
    expect(features.some((a) => a._quarry_creator !== null)).toBe(true);
  });
});

describe('structures of KKR calculations: empty spheres and vacancies', () => {
  // As aiida-kkr writes them: empty spheres as kind X, a vacancy as a kind H of weight 0.
  const node = (kinds: any[], sites: [string, number][]) =>
    structureProperties({
      pk: 1,
      uuid: 'u',
      label: '',
      mtime: '2024-01-01 00:00:00',
      creator: null,
      attributes: {
        cell: [
          [4, 0, 0],
          [0, 4, 0],
          [0, 0, 30],
        ],
        pbc1: true,
        pbc2: true,
        pbc3: true,
        kinds,
        sites: sites.map(([kind_name, z]) => ({ kind_name, position: [0, 0, z] })),
      },
    });

  it('leave X and vacancies out of elements and formulas, and keep them in the species', () => {
    const withSpheres = node(
      [
        { name: 'Bi', symbols: ['Bi'], weights: [1], mass: 208.98 },
        { name: 'Cr', symbols: ['Cr'], weights: [1], mass: 51.996 },
        { name: 'Te', symbols: ['Te'], weights: [1], mass: 127.6 },
        { name: 'X', symbols: ['X'], weights: [1], mass: 1 },
      ],
      [
        ['Te', 0],
        ['Bi', 2],
        ['Te', 4],
        ['Cr', 6],
        ['Te', 8],
        ...[10, 12, 14, 16, 18].map((z): [string, number] => ['X', z]),
      ],
    );
    expect(withSpheres).toMatchObject({
      elements: ['Bi', 'Cr', 'Te'],
      nelements: 3,
      elements_ratios: [0.2, 0.2, 0.6],
      chemical_formula_reduced: 'BiCrTe3',
      chemical_formula_hill: 'BiCrTe3',
      chemical_formula_descriptive: 'BiCrTe3',
      chemical_formula_anonymous: 'A3BC',
      nsites: 10,
      structure_features: [],
    });
    expect(withSpheres.species.at(-1)).toEqual({
      name: 'X',
      chemical_symbols: ['X'],
      concentration: [1],
      mass: [1],
    });

    const withVacancy = node(
      [
        { name: 'Bi', symbols: ['Bi'], weights: [1], mass: 208.98 },
        { name: 'Te', symbols: ['Te'], weights: [1], mass: 127.6 },
        { name: 'H', symbols: ['H'], weights: [0], mass: 1.008 },
      ],
      [
        ['Te', 0],
        ['Bi', 2],
        ['Te', 4],
        ['Bi', 6],
        ['Te', 8],
        ['H', 10],
      ],
    );
    expect(withVacancy).toMatchObject({
      elements: ['Bi', 'Te'],
      nelements: 2,
      chemical_formula_reduced: 'Bi2Te3',
      chemical_formula_hill: 'Bi2Te3',
      chemical_formula_anonymous: 'A3B2',
      nsites: 6,
      species_at_sites: ['Te', 'Bi', 'Te', 'Bi', 'Te', 'H'],
      structure_features: [],
    });
    expect(withVacancy.species.at(-1)).toEqual({
      name: 'H',
      chemical_symbols: ['vacancy'],
      concentration: [1],
      mass: [0],
    });
  });
});
