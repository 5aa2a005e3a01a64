/**
 * The provenance graph's placement (inputs left, outputs right, callers above, called below; nothing drawn ever
 * moves) and the state it keeps in the address and the session (expansions, selection, trail).
 */
import { describe, expect, it } from 'vitest';
import { emptyLayout, placeAround, sideOf } from '../web/src/by-type/logic/graph-layout.js';
import {
  emptyGraph,
  mergeTree,
  neighbourSides,
  nodeCaption,
  type TreeAnswer,
} from '../web/src/by-type/logic/graph.js';
import {
  extendTrail,
  MAX_EXPANSIONS,
  parseTrail,
  readGraphState,
  TRAIL_LENGTH,
  writeGraphState,
} from '../web/src/by-type/logic/graph-state.js';

const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

describe('provenance layering', () => {
  it('puts inputs left, outputs right, callers above and called processes below', () => {
    expect(sideOf('incoming', 'input_calc')).toBe('left');
    expect(sideOf('incoming', 'create')).toBe('left');
    expect(sideOf('outgoing', 'create')).toBe('right');
    expect(sideOf('outgoing', 'return')).toBe('right');
    expect(sideOf('incoming', 'call_calc')).toBe('above');
    expect(sideOf('outgoing', 'call_work')).toBe('below');
  });

  it('groups a tree by side, in link-label order', () => {
    const tree: TreeAnswer = {
      nodes: [
        {
          uuid: 'c',
          node_type: 'process.calculation.calcjob.CalcJobNode.',
          incoming: [
            {
              uuid: 's',
              node_type: 'data.core.structure.StructureData.',
              link_label: 'structure',
              link_type: 'input_calc',
            },
            {
              uuid: 'k',
              node_type: 'data.core.code.installed.InstalledCode.',
              link_label: 'code',
              link_type: 'input_calc',
            },
            {
              uuid: 'w',
              node_type: 'process.workflow.workchain.WorkChainNode.',
              link_label: 'CALL',
              link_type: 'call_calc',
            },
          ],
          outgoing: [
            {
              uuid: 'b',
              node_type: 'data.core.array.bands.BandsData.',
              link_label: 'output_band',
              link_type: 'create',
            },
          ],
        },
      ],
    };
    expect(neighbourSides(tree)).toEqual({ left: ['k', 's'], right: ['b'], above: ['w'], below: [] });
  });

  it('places a neighbourhood around its centre and never moves what is placed', () => {
    const layout = emptyLayout();
    placeAround(layout, 'c', { left: ['a', 'b', 'd'], right: ['o'], above: ['w'], below: ['x', 'y'] });
    const at = (id: string) => layout.cells.get(id);
    expect(at('c')).toEqual({ col: 0, row: 0 });
    expect([at('a'), at('b'), at('d')]).toEqual([
      { col: -1, row: -1 },
      { col: -1, row: 0 },
      { col: -1, row: 1 },
    ]);
    expect(at('o')).toEqual({ col: 1, row: 0 });
    expect(at('w')).toEqual({ col: 0, row: -1 });
    expect([at('x'), at('y')]).toEqual([
      { col: 0, row: 1 },
      { col: 0, row: 2 },
    ]);
    // Expanding an input: its own inputs further left, its other outputs in a layer of their own (neither the
    // centre's column nor that of the centre's outputs).
    const before = new Map(layout.cells);
    const { placed } = placeAround(layout, 'a', { left: ['i'], right: ['c', 'p', 'q'] });
    expect(placed).toEqual(['i', 'p', 'q']);
    for (const [id, cell] of before) expect(layout.cells.get(id)).toEqual(cell);
    expect(at('i')).toEqual({ col: -2, row: -1 });
    expect([at('p')!.col, at('q')!.col]).toEqual([2, 2]);
    const cells = [...layout.cells.values()].map((c) => `${c.col},${c.row}`);
    expect(new Set(cells).size).toBe(cells.length);
  });

  it('captions a box with its type, its label (or formula where it has none), and pk, cut to fit', () => {
    const n = { node_type: 'data.core.structure.StructureData.', node_label: 'MoS2 monolayer', id: 3811 };
    expect(nodeCaption(n)).toBe('StructureData\nMoS2 monolayer\npk 3811');
    // Its own label first; the formula where it has none.
    expect(nodeCaption(n, 'MoS2')).toBe('StructureData\nMoS2 monolayer\npk 3811');
    expect(nodeCaption({ ...n, node_label: '' }, 'MoS2')).toBe('StructureData\nMoS2\npk 3811');
    // Cut to the width asked, with an ellipsis; what fits is whole.
    const cut = nodeCaption({ ...n, node_label: 'x'.repeat(40) }, undefined, { width: 100, font: 12 }).split(
      '\n',
    );
    expect(cut[1]).toMatch(/^x+…$/);
    expect(cut[1]!.length).toBeLessThan(40);
    expect(cut[1]!.length * 12 * 0.58).toBeLessThanOrEqual(100);
    expect(cut[0]).toBe('StructureData');
    const g = emptyGraph();
    mergeTree(g, { nodes: [{ uuid: 'a', node_type: 'data.core.int.Int.', id: 7 }] });
    expect(g.nodes.get('a')).toMatchObject({ label: 'Int\npk 7', pk: 7, name: '' });
  });
});

describe('the graph in the address and the session', () => {
  it('reads and writes expansions and the selection, keeping other parameters', () => {
    const search = writeGraphState('?profile=x&graph=old', {
      expanded: [uuid(1), uuid(2)],
      selected: uuid(3),
    });
    expect(search).toBe(`?profile=x&graph=${uuid(1)},${uuid(2)}&selected=${uuid(3)}`);
    expect(readGraphState(search)).toEqual({ expanded: [uuid(1), uuid(2)], selected: uuid(3) });
    expect(writeGraphState(search, { expanded: [] })).toBe('?profile=x');
  });

  it('ignores what is not a UUID, repeats, and more than its bound of expansions', () => {
    expect(readGraphState('?graph=nope,,123&selected=<script>')).toEqual({
      expanded: [],
      selected: undefined,
    });
    const many = Array.from({ length: MAX_EXPANSIONS + 5 }, (_, i) => uuid(i));
    expect(readGraphState(`?graph=${[uuid(0), ...many].join(',')}`).expanded).toEqual(
      many.slice(0, MAX_EXPANSIONS),
    );
  });

  it('keeps a bounded trail, the latest visit last', () => {
    let trail = parseTrail(null);
    for (let i = 0; i < TRAIL_LENGTH + 3; i++)
      trail = extendTrail(trail, { uuid: uuid(i), caption: `n${i}` });
    trail = extendTrail(trail, { uuid: uuid(5), caption: 'again' });
    expect(trail).toHaveLength(TRAIL_LENGTH);
    expect(trail.at(-1)).toEqual({ uuid: uuid(5), caption: 'again' });
    expect(parseTrail(JSON.stringify(trail))).toEqual(trail);
    expect(parseTrail('{not json')).toEqual([]);
    expect(parseTrail(JSON.stringify([{ uuid: 'x', caption: 1 }]))).toEqual([]);
  });
});
