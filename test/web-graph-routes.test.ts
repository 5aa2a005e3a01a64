/**
 * The provenance graph's drawing as geometry, on neighbourhoods of realistic shapes (a calculation with its inputs,
 * outputs and caller; a code used by many calculations; a band structure followed back through its calculation,
 * workflow and structure; a workflow calling many processes): no link passes through a box other than its ends,
 * no two link labels overlap and none lies on a box, every caption fits its box. The checks themselves
 * (web/src/by-type/logic/graph-geometry.ts) are the ones the browser tests run on what cytoscape drew.
 */
import { describe, expect, it } from 'vitest';
import {
  edgesThroughBoxes,
  overflowingCaptions,
  overlappingLabels,
  problems,
  segmentCrossesBox,
} from '../web/src/by-type/logic/graph-geometry.js';
import {
  emptyGraph,
  moreMarkers,
  mergeTree,
  neighbourSides,
  NEIGHBOURS_PER_DIRECTION,
  type Graph,
  type TreeAnswer,
  type TreeNode,
} from '../web/src/by-type/logic/graph.js';
import {
  COLUMN_WIDTH,
  emptyLayout,
  placeAround,
  type Layout,
} from '../web/src/by-type/logic/graph-layout.js';
import { plan, planGeometry } from '../web/src/by-type/logic/graph-plan.js';
import { BOX_MAX_WIDTH, segmentData } from '../web/src/by-type/logic/graph-routes.js';

const CALC = 'process.calculation.calcjob.CalcJobNode.';
const WORK = 'process.workflow.workchain.WorkChainNode.';
const STRUCT = 'data.core.structure.StructureData.';
const DICT = 'data.core.dict.Dict.';
const CODE = 'data.core.code.installed.InstalledCode.';
const BANDS = 'data.core.array.bands.BandsData.';

let pk = 100;
const n = (uuid: string, node_type: string, link_label: string, link_type: string, label = ''): TreeNode => ({
  uuid,
  node_type,
  node_label: label,
  id: pk++,
  link_label,
  link_type,
});

/** The graph and layout after expanding `centre` with `tree`, as the view does it. */
function expand(graph: Graph, layout: Layout, tree: TreeAnswer, total?: { in: number; out: number }) {
  const centre = tree.nodes[0]!;
  const sent = { in: centre.incoming?.length ?? 0, out: centre.outgoing?.length ?? 0 };
  mergeTree(graph, {
    ...tree,
    metadata: [
      {
        total_no_of_incomings: total?.in ?? sent.in,
        total_no_of_outgoings: total?.out ?? sent.out,
        sent_no_of_incomings: sent.in,
        sent_no_of_outgoings: sent.out,
      },
    ],
  });
  const sides = neighbourSides(tree);
  for (const m of moreMarkers(graph))
    if (m.of === centre.uuid) sides[m.direction === 'incoming' ? 'left' : 'right'].push(m.id);
  placeAround(layout, centre.uuid, sides);
}

const check = (graph: Graph, layout: Layout, centre: string) => {
  const p = plan(graph, layout, new Map(), centre);
  return {
    p,
    geometry: planGeometry(layout, p),
    problems: problems(...(Object.values(planGeometry(layout, p)) as [never, never])),
  };
};

function calcTree(uuid: string, caller?: string): TreeAnswer {
  return {
    nodes: [
      {
        uuid,
        node_type: CALC,
        id: pk++,
        incoming: [
          n(`${uuid}-s`, STRUCT, 'structure', 'input_calc', 'Si diamond'),
          n(`${uuid}-p`, DICT, 'parameters', 'input_calc'),
          n(`${uuid}-k`, 'data.core.array.kpoints.KpointsData.', 'kpoints', 'input_calc'),
          n(`${uuid}-c`, CODE, 'code', 'input_calc', 'pw-7.2@localhost'),
          n(
            `${uuid}-u1`,
            'data.pseudo.upf.UpfData.',
            'pseudos__Si',
            'input_calc',
            'Si.pbe-n-rrkjus_psl.1.0.0.UPF',
          ),
          n(`${uuid}-o`, DICT, 'settings', 'input_calc'),
          ...(caller ? [n(caller, WORK, 'iteration_01', 'call_calc', 'PwBaseWorkChain')] : []),
        ],
        outgoing: [
          n(`${uuid}-op`, DICT, 'output_parameters', 'create'),
          n(`${uuid}-rf`, 'data.core.remote.RemoteData.', 'remote_folder', 'create'),
          n(`${uuid}-rt`, 'data.core.folder.FolderData.', 'retrieved', 'create'),
          n(`${uuid}-b`, BANDS, 'output_band', 'create'),
        ],
      },
    ],
  };
}

describe('the geometric checks', () => {
  it('finds a segment through a box and not one beside it', () => {
    const box = { x1: 0, y1: 0, x2: 10, y2: 10 };
    expect(segmentCrossesBox({ x: -5, y: 5 }, { x: 15, y: 5 }, box)).toBe(true);
    expect(segmentCrossesBox({ x: -5, y: -5 }, { x: 15, y: 15 }, box)).toBe(true);
    expect(segmentCrossesBox({ x: -5, y: 12 }, { x: 15, y: 12 }, box)).toBe(false);
    expect(segmentCrossesBox({ x: -5, y: 5 }, { x: -1, y: 5 }, box)).toBe(false);
    // Along a border is not through.
    expect(segmentCrossesBox({ x: -5, y: 0 }, { x: 15, y: 0 }, box)).toBe(false);
  });

  it('reports links through boxes, overlapping labels and overflowing captions', () => {
    const nodes = [
      { id: 'a', box: { x1: 0, y1: 0, x2: 10, y2: 10 } },
      { id: 'b', box: { x1: 50, y1: 0, x2: 60, y2: 10 }, caption: { x1: 48, y1: 2, x2: 58, y2: 8 } },
      { id: 'c', box: { x1: 100, y1: 0, x2: 110, y2: 10 } },
    ];
    const edges = [
      {
        id: 'ac',
        source: 'a',
        target: 'c',
        path: [
          { x: 10, y: 5 },
          { x: 100, y: 5 },
        ],
        label: { x1: 20, y1: 20, x2: 40, y2: 30 },
      },
      {
        id: 'ab',
        source: 'a',
        target: 'b',
        path: [
          { x: 10, y: 5 },
          { x: 50, y: 5 },
        ],
        label: { x1: 30, y1: 25, x2: 45, y2: 35 },
      },
    ];
    expect(edgesThroughBoxes(nodes, edges)).toEqual(['ac through b']);
    expect(overlappingLabels(nodes, edges)).toEqual(['label of ac over label of ab']);
    expect(overflowingCaptions(nodes)).toEqual(['b']);
  });
});

describe('the drawing of realistic neighbourhoods', () => {
  it("draws a calculation's inputs, outputs and caller with no link through a box and no labels meeting", () => {
    const graph = emptyGraph();
    const layout = emptyLayout();
    expand(graph, layout, calcTree('calc', 'work'));
    const { problems: found, p } = check(graph, layout, 'calc');
    expect(found).toEqual([]);
    // Every link has its label drawn; the long pseudopotential label is cut, and the box no wider than allowed.
    expect(p.edges.filter((e) => e.labelEnd === 'none').map((e) => e.id)).toEqual([]);
    const pseudo = p.nodes.get('calc-u1')!;
    expect(pseudo.cut).toBe(true);
    expect(pseudo.caption.split('\n')[1]).toMatch(/…$/);
    expect(pseudo.size.w).toBeLessThanOrEqual(BOX_MAX_WIDTH);
    // The structure shows its own label, not its formula.
    expect(plan(graph, layout, new Map([['calc-s', 'Si2']]), 'calc').nodes.get('calc-s')!.caption).toContain(
      'Si diamond',
    );
  });

  it('keeps a hub and one of its users readable: the hub expanded, then a user with inputs shared with the hub', () => {
    const graph = emptyGraph();
    const layout = emptyLayout();
    const users = Array.from({ length: NEIGHBOURS_PER_DIRECTION }, (_, i) =>
      n(`u${i}`, CALC, 'code', 'input_calc'),
    );
    expand(
      graph,
      layout,
      { nodes: [{ uuid: 'code', node_type: CODE, id: 1, node_label: 'pw-7.2', outgoing: users }] },
      { in: 0, out: 87 },
    );
    expect(check(graph, layout, 'code').problems).toEqual([]);
    const tree = calcTree('u3', 'w');
    tree.nodes[0]!.incoming = tree.nodes[0]!.incoming!.map((x) =>
      x.link_label === 'code' ? { ...x, uuid: 'code' } : x,
    );
    expand(graph, layout, tree);
    expect(check(graph, layout, 'code').problems).toEqual([]);
  });

  it('follows a band structure back through its calculation, the workflow and the structure', () => {
    const graph = emptyGraph();
    const layout = emptyLayout();
    const bands: TreeAnswer = {
      nodes: [
        {
          uuid: 'bands',
          node_type: BANDS,
          id: 1,
          incoming: [n('calc', CALC, 'output_band', 'create'), n('work', WORK, 'band_structure', 'return')],
          outgoing: [],
        },
      ],
    };
    expand(graph, layout, bands);
    const c = calcTree('calc', 'work');
    c.nodes[0]!.outgoing = c.nodes[0]!.outgoing!.map((x) =>
      x.link_label === 'output_band' ? { ...x, uuid: 'bands' } : x,
    );
    expand(graph, layout, c);
    expect(check(graph, layout, 'bands').problems).toEqual([]);
    const where = () => new Map(check(graph, layout, 'bands').geometry.nodes.map((x) => [x.id, x.box]));
    const before = where();
    // The workflow: it called the calculation and others, took the structure, returned the bands.
    const called = Array.from({ length: 5 }, (_, i) =>
      n(`sub${i}`, CALC, `iteration_0${i + 2}`, 'call_calc'),
    );
    expand(graph, layout, {
      nodes: [
        {
          uuid: 'work',
          node_type: WORK,
          id: 2,
          incoming: [
            n('calc-s', STRUCT, 'structure', 'input_work', 'Si diamond'),
            n('top', WORK, 'CALL', 'call_work'),
          ],
          outgoing: [
            { ...n('calc', CALC, 'iteration_01', 'call_calc') },
            ...called,
            n('bands', BANDS, 'band_structure', 'return'),
            n('wp', DICT, 'output_parameters', 'return'),
          ],
        },
      ],
    });
    expect(check(graph, layout, 'bands').problems).toEqual([]);
    // The structure, used by many other calculations.
    const users = Array.from({ length: NEIGHBOURS_PER_DIRECTION }, (_, i) =>
      n(`su${i}`, CALC, 'structure', 'input_calc'),
    );
    expand(
      graph,
      layout,
      { nodes: [{ uuid: 'calc-s', node_type: STRUCT, id: 3, node_label: 'Si diamond', outgoing: users }] },
      { in: 0, out: 40 },
    );
    const { problems: found, geometry } = check(graph, layout, 'bands');
    expect(found).toEqual([]);
    // Nothing drawn moved.
    const after = where();
    for (const [id, box] of before) expect(after.get(id), id).toEqual(box);
    // Columns are as wide as their boxes and labels need, narrower than the default pitch.
    const xs = [...new Set([...layout.colX.values()])].sort((a, b) => a - b);
    const pitches = xs.slice(1).map((x, i) => x - xs[i]!);
    expect(Math.min(...pitches)).toBeLessThan(COLUMN_WIDTH);
    expect(geometry.nodes.length).toBeGreaterThan(25);
    expect(geometry.edges.length).toBeGreaterThan(25);
  });

  it('turns a route into cytoscape segment weights and distances that give the same points back', () => {
    const from = { x: 0, y: 0 };
    const to = { x: 440, y: 160 };
    const turns = [
      { x: 220, y: 0 },
      { x: 220, y: 160 },
    ];
    const { weights, distances } = segmentData(from, to, turns);
    const l = Math.hypot(to.x - from.x, to.y - from.y);
    const normal = { x: -(to.y - from.y) / l, y: (to.x - from.x) / l };
    turns.forEach((t, i) => {
      expect(from.x + weights[i]! * (to.x - from.x) + distances[i]! * normal.x).toBeCloseTo(t.x);
      expect(from.y + weights[i]! * (to.y - from.y) + distances[i]! * normal.y).toBeCloseTo(t.y);
    });
  });
});
