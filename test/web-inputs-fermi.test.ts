/**
 * What a process page's Inputs table and a band plot's Fermi energy are made of (web/src/by-type/logic/inputs.ts,
 * fermi.ts): inputs in the order a scientist reads them, pseudopotentials by element, dictionaries unfolded; a
 * Fermi energy read from the querybuilder's answer, and none where the rich archive's calculations give none.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fermiOf, fermiQuery } from '../web/src/by-type/logic/fermi.js';
import { linkLabel, processInputs, unfold, type InputLink } from '../web/src/by-type/logic/inputs.js';
import { richFile } from './conformance/corpus.js';
import { appOn } from './helpers.js';

const link = (over: Partial<InputLink>): InputLink => ({
  uuid: over.link_label ?? 'u',
  id: 1,
  label: '',
  node_type: 'data.core.int.Int.',
  link_label: 'x',
  link_type: 'input_calc',
  ...over,
});

describe('process inputs', () => {
  it('puts the code first, then structure, parameters, k-points; gathers pseudopotentials by element', () => {
    const { rows, pseudos } = processInputs([
      link({
        link_label: 'pseudos__Si',
        node_type: 'data.core.upf.UpfData.',
        attributes: { element: 'Si', filename: 'Si.UPF' },
      }),
      link({
        link_label: 'kpoints',
        node_type: 'data.core.array.kpoints.KpointsData.',
        attributes: { mesh: [4, 4, 2], offset: [0, 0, 0.5] },
      }),
      link({
        link_label: 'kpoints_list',
        node_type: 'data.core.array.kpoints.KpointsData.',
        attributes: {},
      }),
      link({ link_label: 'x', attributes: { value: 3 } }),
      link({ link_label: 'pw__parameters', node_type: 'data.core.dict.Dict.' }),
      link({
        link_label: 'structure',
        node_type: 'data.core.structure.StructureData.',
        attributes: {
          kinds: [{ name: 'Si', symbols: ['Si'], weights: [1] }],
          sites: [{ kind_name: 'Si' }, { kind_name: 'Si' }],
        },
      }),
      link({
        link_label: 'code',
        node_type: 'data.core.code.installed.InstalledCode.',
        attributes: { input_plugin: 'quantumespresso.pw' },
      }),
      link({
        link_label: 'pseudos__Al',
        node_type: 'data.core.upf.UpfData.',
        attributes: { element: 'Al', filename: 'Al.UPF' },
      }),
      link({ link_label: 'result', link_type: 'create' }),
      link({
        link_label: 'kpoints_path',
        node_type: 'data.core.array.kpoints.KpointsData.',
        attributes: { cell: [] },
      }),
      link({ link_label: 'remote', node_type: 'data.core.remote.RemoteData.' }),
    ]);
    expect(rows.map((r) => [r.kind, r.label, r.summary])).toEqual([
      ['code', 'code', 'quantumespresso.pw'],
      ['structure', 'structure', 'Si2'],
      ['parameters', 'pw.parameters', undefined],
      ['kpoints', 'kpoints', 'mesh 4 × 4 × 2, offset 0 0 0.5'],
      // An explicit list, and a node without a value, say their kind by name, not their raw node type.
      ['kpoints', 'kpoints_list', 'explicit list of points'],
      ['kpoints', 'kpoints_path', 'explicit list of points'],
      ['other', 'remote', 'RemoteData'],
      ['other', 'x', '3'],
    ]);
    expect(pseudos.map((p) => [p.element, p.filename])).toEqual([
      ['Al', 'Al.UPF'],
      ['Si', 'Si.UPF'],
    ]);
    expect(linkLabel('a__b__c')).toBe('a.b.c');
  });

  it('unfolds a dictionary to dotted keys, lists on one line, at most the rows asked for', () => {
    const dict = {
      SYSTEM: { ecutwfc: 60, nspin: 2, starting_magnetization: [0.5, 0] },
      CONTROL: { tprnfor: true },
    };
    expect(unfold(dict)).toEqual({
      rows: [
        ['SYSTEM.ecutwfc', '60'],
        ['SYSTEM.nspin', '2'],
        ['SYSTEM.starting_magnetization', '0.5, 0'],
        ['CONTROL.tprnfor', 'True'],
      ],
      total: 4,
    });
    expect(unfold(dict, 2).rows).toHaveLength(2);
    expect(unfold(dict, 2).total).toBe(4);
  });
});

describe('Fermi energy of a band structure', () => {
  it('is the first finite one among the dictionaries of its creator', () => {
    expect(
      fermiOf({
        d: [
          { 'attributes.fermi_energy': null },
          { 'attributes.fermi_energy': 6.12, 'attributes.fermi_energy_units': 'eV' },
        ],
      }),
    ).toEqual({ energy: 6.12, units: 'eV' });
    expect(fermiOf({ d: [{ 'attributes.fermi_energy': 'high' }] })).toBeUndefined();
    expect(fermiOf(undefined)).toBeUndefined();
  });

  describe('on the rich archive', () => {
    let app: Awaited<ReturnType<typeof appOn>>;
    beforeAll(async () => {
      app = await appOn(richFile('rich.aiida'));
    });
    afterAll(async () => {
      await app?.close();
    });

    it('the query runs, and its calculations give no Fermi energy (so none is drawn)', async () => {
      const listed = await app.app.inject({
        method: 'GET',
        url: `/api/v4/nodes/?full_type=${encodeURIComponent('"data.core.array.bands.BandsData.|"')}&limit=50`,
      });
      const bands = (listed.json() as { data: { nodes: { id: number }[] } }).data.nodes;
      expect(bands.length).toBeGreaterThan(0);
      for (const b of bands) {
        const answer = await app.app.inject({
          method: 'POST',
          url: '/api/v4/querybuilder/',
          payload: fermiQuery(b.id) as object,
        });
        expect(answer.statusCode).toBe(200);
        expect(fermiOf((answer.json() as { data: { d?: Record<string, unknown>[] } }).data)).toBeUndefined();
      }
    });
  });
});
