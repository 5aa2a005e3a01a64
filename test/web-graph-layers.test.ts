/**
 * The provenance graph's layers (web/src/by-type/logic/graph-layout.ts): a layer longer than a column holds at
 * the caption limit is split into sub-columns, and what still does not fit waits behind "N more" until it is
 * asked for; each expansion puts its new inputs and outputs in layers of their own, leaves every box drawn where
 * it was, and orders its layer so that links do not cross more than before.
 */
import { describe, expect, it } from 'vitest';
import { crossings, problems } from '../web/src/by-type/logic/graph-geometry.js';
import {
  emptyGraph,
  mergeTree,
  neighbourSides,
  neighboursOf,
  type Graph,
  type TreeNode,
} from '../web/src/by-type/logic/graph.js';
import {
  emptyLayout,
  placeAround,
  type Layout,
  type PlaceOptions,
} from '../web/src/by-type/logic/graph-layout.js';
import { plan, planGeometry } from '../web/src/by-type/logic/graph-plan.js';

const CALC = 'process.calculation.calcjob.CalcJobNode.';
const DICT = 'data.core.dict.Dict.';
const STRUCT = 'data.core.structure.StructureData.';

let pk = 1;
const n = (uuid: string, node_type: string, link_label: string, link_type: string): TreeNode => ({
  uuid,
  node_type,
  id: pk++,
  link_label,
  link_type,
});

function options(graph: Graph, rows: number, all = false): PlaceOptions {
  return {
    rows,
    subColumns: all ? Infinity : undefined,
    neighbours: (id) => neighboursOf(graph, id),
  };
}

/** Expands `centre` as the view does; returns what it placed and what waits behind "N more". */
function expand(graph: Graph, layout: Layout, centre: TreeNode, rows = 8) {
  const tree = { nodes: [centre] };
  mergeTree(graph, tree);
  return placeAround(layout, centre.uuid, neighbourSides(tree), options(graph, rows));
}

const picture = (graph: Graph, layout: Layout, centre: string) => {
  const p = plan(graph, layout, new Map(), centre);
  return planGeometry(layout, p);
};

const columns = (layout: Layout, ids: string[]) => new Set(ids.map((id) => layout.cells.get(id)!.col));

describe('a layer longer than a column holds', () => {
  it('is split into sub-columns, the rest behind "N more" until asked for', () => {
    const graph = emptyGraph();
    const layout = emptyLayout();
    const inputs = Array.from({ length: 13 }, (_, i) =>
      n(`in${String(i).padStart(2, '0')}`, DICT, `p${String(i).padStart(2, '0')}`, 'input_calc'),
    );
    const { placed, left } = expand(
      graph,
      layout,
      { uuid: 'c', node_type: CALC, id: 0, incoming: inputs },
      5,
    );
    // Two sub-columns of 5 rows beside each other, left of the calculation; 3 wait.
    expect(placed).toHaveLength(1 + 10);
    expect(left.left).toEqual(['in10', 'in11', 'in12']);
    const cols = columns(layout, placed.slice(1));
    expect([...cols].sort((a, b) => a - b)).toEqual([-2, -1]);
    for (const col of cols)
      expect([...layout.cells.values()].filter((c) => c.col === col).length).toBeLessThanOrEqual(5);
    // Under the limit, one column is enough.
    const small = emptyLayout();
    const fewer = expand(
      emptyGraph(),
      small,
      { uuid: 'c', node_type: CALC, id: 0, incoming: inputs.slice(0, 5) },
      5,
    );
    expect(fewer.left).toEqual({});
    expect(columns(small, fewer.placed.slice(1))).toEqual(new Set([-1]));
    // Asked for, the waiting ones take a sub-column of their own; nothing drawn moves; the picture stays readable.
    const before = new Map(layout.cells);
    placeAround(layout, 'c', { left: left.left }, options(graph, 5, true));
    for (const [id, cell] of before) expect(layout.cells.get(id)).toEqual(cell);
    expect(columns(layout, left.left!)).toEqual(new Set([-3]));
    expect(problems(...(Object.values(picture(graph, layout, 'c')) as [never, never]))).toEqual([]);
  });
});

describe('an expansion', () => {
  /** A calculation with a structure, parameters and k-points in, and three outputs. */
  const centre = (): TreeNode => ({
    uuid: 'c',
    node_type: CALC,
    id: 0,
    incoming: [
      n('k', DICT, 'kpoints', 'input_calc'),
      n('p', DICT, 'parameters', 'input_calc'),
      n('s', STRUCT, 'structure', 'input_calc'),
    ],
    outgoing: [
      n('o1', DICT, 'output_parameters', 'create'),
      n('o2', DICT, 'misc', 'create'),
      n('o3', STRUCT, 'output_structure', 'create'),
    ],
  });
  /** A data node's creator and the other calculations that used it. */
  const data = (uuid: string, type: string, creator = `${uuid}-creator`): TreeNode => ({
    uuid,
    node_type: type,
    id: pk++,
    incoming: [n(creator, CALC, 'result', 'create')],
    outgoing: [n(`${uuid}-user1`, CALC, 'x', 'input_calc'), n(`${uuid}-user2`, CALC, 'y', 'input_calc')],
  });

  it('puts new neighbours in layers of their own, keeps every box where it was, and adds no crossing', () => {
    const graph = emptyGraph();
    const layout = emptyLayout();
    expand(graph, layout, centre());
    let before = crossings(picture(graph, layout, 'c').edges);
    // The inputs expanded bottom first (each one's creator and other users), then an output (its other users).
    for (const id of ['s', 'k', 'p', 'o2']) {
      const cells = new Map(layout.cells);
      const owners = new Map(layout.owners);
      const at = layout.cells.get(id)!;
      const type = graph.nodes.get(id)!.nodeType;
      const { placed } = expand(graph, layout, data(id, type, id.startsWith('o') ? 'c' : undefined));
      for (const [node, cell] of cells) expect(layout.cells.get(node), node).toEqual(cell);
      expect(placed.length).toBeGreaterThan(0);
      for (const node of placed) {
        const col = layout.cells.get(node)!.col;
        // Never the centre's column, nor a layer another expansion started.
        expect(col, node).not.toBe(0);
        const owner = owners.get(col);
        expect(owner === undefined || owner === `${at.col}:${col < at.col ? 'left' : 'right'}`, node).toBe(
          true,
        );
      }
      const geometry = picture(graph, layout, 'c');
      expect(problems(geometry.nodes, geometry.edges), `after ${id}`).toEqual([]);
      const after = crossings(geometry.edges);
      expect(after, `crossings after expanding ${id}`).toBeLessThanOrEqual(before);
      before = after;
    }
    // The creators of the three inputs share a layer, in the inputs' own order.
    const creators = ['k', 'p', 's'].map((id) => layout.cells.get(`${id}-creator`)!);
    expect(new Set(creators.map((c) => c.col)).size).toBe(1);
    const rows = creators.map((c) => c.row);
    expect([...rows].sort((a, b) => a - b)).toEqual(rows);
  });

  it('orders a shared layer by barycentre: no crossing where placing by nearness alone makes one', () => {
    const graph = emptyGraph();
    const layout = emptyLayout();
    const outputs = ['a', 'b', 'c', 'd', 'e'].map((l) => n(`o-${l}`, DICT, l, 'create'));
    expand(graph, layout, { uuid: 'c', node_type: CALC, id: 0, outgoing: outputs });
    expect(['o-a', 'o-b', 'o-d'].map((id) => layout.cells.get(id)!.row)).toEqual([-2, -1, 1]);
    const users = (of: string, count: number): TreeNode => ({
      uuid: of,
      node_type: DICT,
      id: pk++,
      outgoing: Array.from({ length: count }, (_, i) => n(`${of}-user${i}`, CALC, `u${i}`, 'input_calc')),
    });
    // One user each for the outputs at rows -1 and 1 leaves row 0 free between them; the four users of the output
    // at row -2 go above the first's, not into that free row (nearness alone would take it, and cross).
    expand(graph, layout, users('o-b', 1));
    expand(graph, layout, users('o-d', 1));
    const before = crossings(picture(graph, layout, 'c').edges);
    expand(graph, layout, users('o-a', 4));
    const rows = Array.from({ length: 4 }, (_, i) => layout.cells.get(`o-a-user${i}`)!.row);
    expect(Math.max(...rows)).toBeLessThan(layout.cells.get('o-b-user0')!.row);
    expect(crossings(picture(graph, layout, 'c').edges)).toBeLessThanOrEqual(before);
  });
});
