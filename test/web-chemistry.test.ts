/**
 * The formulas the explorer's lists show (web/src/chemistry.ts): from the attributes a list asks for, equal to
 * the formula the server derives for every structure of the rich archive, and the CIFs' own formulae.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FORMULA_ATTRIBUTES,
  formulaOf,
  formulaParts,
  hasFormula,
  writtenFormula,
} from '../web/src/chemistry.js';
import { richFile } from './conformance/corpus.js';
import { appOn } from './helpers.js';

describe('formulas from attributes', () => {
  it('Hill order from kinds and sites; alloys in braces; a CIF by its formulae', () => {
    const kinds = [
      { name: 'O', symbols: ['O'], weights: [1] },
      { name: 'Si', symbols: ['Si'], weights: [1] },
      { name: 'C1', symbols: ['C'], weights: [1] },
      { name: 'H', symbols: ['H'], weights: [1] },
    ];
    const sites = (names: string[]) => names.map((kind_name) => ({ kind_name, position: [0, 0, 0] }));
    expect(formulaOf({ kinds, sites: sites(['Si', 'O', 'O']) })).toBe('O2Si');
    expect(formulaOf({ kinds, sites: sites(['H', 'O', 'C1', 'H', 'H', 'H']) })).toBe('CH4O');
    const alloy = [{ name: 'AuCu', symbols: ['Au', 'Cu'], weights: [0.25, 0.75] }];
    expect(formulaOf({ kinds: alloy, sites: sites(['AuCu', 'AuCu']) })).toBe('{Au0.25Cu0.75}2');
    const vacancy = [{ name: 'Zn', symbols: ['Zn'], weights: [0.9] }];
    expect(formulaOf({ kinds: vacancy, sites: sites(['Zn']) })).toBe('{X0.10Zn0.90}');
    // A CIF's written formula is put in the same Hill order (its cell's content comes from OPTIMADE in lists).
    expect(formulaOf({ formulae: ['Si2 O4'] })).toBe('O4Si2');
    expect(formulaOf({ formulae: ['Mo1 S2'] })).toBe('MoS2');
    expect(formulaOf({ formulae: ['H4 C1'] })).toBe('CH4');
    expect(writtenFormula('Fe2 O3 (approx.)')).toBe('Fe2 O3 (approx.)');
    expect(formulaOf({ kinds, sites: sites(['Xx']) })).toBeUndefined();
    expect(formulaOf(null)).toBeUndefined();
    expect(hasFormula('data.core.structure.StructureData.')).toBe(true);
    expect(hasFormula('data.core.dict.Dict.')).toBe(false);
  });

  it('splits counts off as subscripts, leaving alloy weights as written', () => {
    expect(formulaParts('Si2O4')).toEqual([
      { text: 'Si', sub: false },
      { text: '2', sub: true },
      { text: 'O', sub: false },
      { text: '4', sub: true },
    ]);
    expect(formulaParts('{Au0.25Cu0.75}2').map((p) => `${p.sub ? '_' : ''}${p.text}`)).toEqual([
      '{Au0.25Cu0.75}',
      '_2',
    ]);
  });
});

describe('on the rich conformance archive', () => {
  let served: Awaited<ReturnType<typeof appOn>>;
  const data = async <T>(url: string) => {
    const r = await served.app.inject({ method: 'GET', url: `/api/v4${url}` });
    expect(r.statusCode, url).toBe(200);
    return (JSON.parse(r.body) as { data: T }).data;
  };
  beforeAll(async () => {
    served = await appOn(richFile('rich.aiida'));
  });
  afterAll(async () => {
    await served?.close();
  });

  it("every structure's list formula is the server's derived formula; the list asks one page at a time", async () => {
    const { nodes } = await data<{ nodes: { id: number; attributes: Record<string, unknown> }[] }>(
      `/nodes/?full_type=${encodeURIComponent('"data.core.structure.StructureData.|"')}&attributes=true&attributes_filter=${FORMULA_ATTRIBUTES.join(',')}`,
    );
    expect(nodes.length).toBe(73);
    const uuids = await data<{ nodes: { id: number; uuid: string }[] }>(
      `/nodes/?full_type=${encodeURIComponent('"data.core.structure.StructureData.|"')}`,
    );
    for (const { id, uuid } of uuids.nodes) {
      const derived = await data<{ derived_properties: { formula: string } }>(
        `/nodes/${uuid}/contents/derived_properties/`,
      );
      const listed = nodes.find((n) => n.id === id)!;
      expect([id, formulaOf(listed.attributes)]).toEqual([id, derived.derived_properties.formula]);
    }
  });

  it("a CIF's written formula is what its file says, in Hill order", async () => {
    const { nodes } = await data<{ nodes: { uuid: string; attributes: Record<string, unknown> }[] }>(
      `/nodes/?full_type=${encodeURIComponent('"data.core.cif.CifData.|"')}&attributes=true&attributes_filter=${FORMULA_ATTRIBUTES.join(',')}`,
    );
    expect(nodes.length).toBeGreaterThan(0);
    let compared = 0;
    for (const node of nodes) {
      const r = await served.app.inject({
        method: 'GET',
        url: `/api/v4/nodes/${node.uuid}/download/?download_format=cif`,
      });
      const match = /_chemical_formula_sum\s+(.+)/.exec(r.body);
      if (match)
        expect(formulaOf(node.attributes)).toBe(
          writtenFormula(match[1]!.trim().replace(/^(['"])(.*)\1$/, '$2')),
        );
      else expect(formulaOf(node.attributes)).toBeUndefined();
      if (match) compared++;
    }
    expect(compared).toBeGreaterThan(0);
  });
});
