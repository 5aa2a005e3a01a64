/**
 * The provenance closure of `GET /export/` on the rich conformance archive, rule by rule, against closures
 * worked out by hand from the archive's links (the pks and UUIDs below were read off db_dblink and db_dbnode
 * of test/fixtures/conformance/data/rich.aiida; each case says which links bring each node in). The nodes and
 * links are read from the exported archive's own database.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { richFile } from './conformance/corpus.js';
import { appOn } from './helpers.js';
import { databaseIn, fetchExport } from './support/export-files.js';

/** A calcjob (5450) called by a workchain (5448) that calls nothing else and is called by nothing. */
const CALCJOB = '872e983d-1456-47d7-b7f2-4f3f3a976653';
/** 5450's inputs (input_calc): a Dict 5449, a structure 3839, a code 3803, two pseudos 3855 and 3857. */
const CALC_INPUTS = [5449, 3839, 3803, 3855, 3857];
/** 5450's outputs (create): remote 5451, retrieved 5452, output_parameters 5453 (also returned by 5448), sum 5454. */
const CALC_OUTPUTS = [5451, 5452, 5453, 5454];
/** 5448 and its own inputs (input_work) that 5450 does not have: parameters 5447, a code 3800. */
const CALLER = [5448, 5447, 3800];
/** 5453, the Dict 5450 created and 5448 returned. */
const OUTPUT_DICT = '31dfada4-f6d9-404b-9d9a-be7ffee26e69';

/** An add calcfunction 5877 with inputs 5875 and 5876 (used nowhere else) and its output 5878. */
const ADD_INPUT = 'c269bbf0-90d5-49ef-a4b0-428bacef27cb';
/** A workfunction 5998 with inputs 5996 (a) and 5997 (b), returning 5996 itself. */
const WF_INPUT_A = '1d233bb3-d37f-45d2-b1a2-520eefe2970c';
const WF_INPUT_B = '928a07dc-b41d-4125-99c3-e91e32486a6a';

describe('export closures on rich.aiida, by rule', () => {
  let served: Awaited<ReturnType<typeof appOn>>;
  beforeAll(async () => {
    served = await appOn(richFile('rich.aiida'));
  });
  afterAll(async () => served?.close());

  /** The pks of the nodes and the (input, output, type) of the links of an export. */
  const exported = async (query: string) => {
    const file = await fetchExport(served.app, `/export/?${query}`);
    const db = await databaseIn(file);
    try {
      const nodes = (db.prepare('SELECT id FROM db_dbnode ORDER BY id').all() as { id: number }[]).map(
        (r) => r.id,
      );
      const links = db
        .prepare('SELECT input_id, output_id, type FROM db_dblink ORDER BY input_id, output_id, type')
        .all() as { input_id: number; output_id: number; type: string }[];
      return { nodes, links: links.map((l) => `${l.input_id}-${l.type}->${l.output_id}`) };
    } finally {
      db.close();
    }
  };
  const sorted = (ids: number[]) => [...ids].sort((a, b) => a - b);

  it('defaults from a calcjob: its inputs, outputs, and its caller with the caller inputs and returns', async () => {
    const { nodes, links } = await exported(`nodes=${CALCJOB}`);
    expect(nodes).toEqual(sorted([5450, ...CALC_INPUTS, ...CALC_OUTPUTS, ...CALLER]));
    // 5 inputs + 4 creates + the call + 5448's 3 inputs + its return of 5453.
    expect(links).toHaveLength(14);
    expect(links).toContain('5448-call_calc->5450');
    expect(links).toContain('5448-return->5453');
    expect(links).toContain('3839-input_work->5448');
  });

  it('call_calc_backward=false leaves the caller out', async () => {
    const { nodes, links } = await exported(`nodes=${CALCJOB}&call_calc_backward=false`);
    expect(nodes).toEqual(sorted([5450, ...CALC_INPUTS, ...CALC_OUTPUTS]));
    expect(links).toHaveLength(9);
    expect(links.some((l) => l.startsWith('5448'))).toBe(false);
  });

  it('return_backward=true brings the caller back through the Dict it returned', async () => {
    const { nodes, links } = await exported(`nodes=${CALCJOB}&call_calc_backward=false&return_backward=true`);
    expect(nodes).toEqual(sorted([5450, ...CALC_INPUTS, ...CALC_OUTPUTS, ...CALLER]));
    expect(links).toHaveLength(14);
  });

  it('create_backward (default) goes from an output to its creator and on; false keeps the output alone', async () => {
    const on = await exported(`nodes=${OUTPUT_DICT}`);
    expect(on.nodes).toEqual(sorted([5450, ...CALC_INPUTS, ...CALC_OUTPUTS, ...CALLER]));
    const off = await exported(`nodes=${OUTPUT_DICT}&create_backward=false`);
    expect(off).toEqual({ nodes: [5453], links: [] });
  });

  it('input_calc_forward=true goes from an input to the calculation that used it', async () => {
    expect(await exported(`nodes=${ADD_INPUT}`)).toEqual({ nodes: [5875], links: [] });
    const on = await exported(`nodes=${ADD_INPUT}&input_calc_forward=true`);
    expect(on.nodes).toEqual([5875, 5876, 5877, 5878]);
    expect(on.links).toEqual(['5875-input_calc->5877', '5876-input_calc->5877', '5877-create->5878']);
  });

  it('input_work_forward=true goes from an input to the workflow that took it', async () => {
    expect(await exported(`nodes=${WF_INPUT_B}`)).toEqual({ nodes: [5997], links: [] });
    const on = await exported(`nodes=${WF_INPUT_B}&input_work_forward=true`);
    expect(on.nodes).toEqual([5996, 5997, 5998]);
    expect(on.links).toEqual(['5996-input_work->5998', '5997-input_work->5998', '5998-return->5996']);
  });

  it('return_backward=true goes from a returned node to the workflow that returned it', async () => {
    expect(await exported(`nodes=${WF_INPUT_A}`)).toEqual({ nodes: [5996], links: [] });
    const on = await exported(`nodes=${WF_INPUT_A}&return_backward=true`);
    expect(on.nodes).toEqual([5996, 5997, 5998]);
  });

  // A workchain 5820 called (call_work) by 5818, which also calls 5827; each calls one calcjob.
  it('call_work_backward (default) goes up to the calling workchain and down its other branch; false stays below', async () => {
    const uuid = await uuidOf(5820);
    const on = await exported(`nodes=${uuid}`);
    // 5818 (caller, input 3806, returns 5825), 5820's branch, and 5827's branch (calcjob 5829 and its data).
    const branch5820 = [5820, 5819, 3801, 3837, 5822, 5821, 3803, 5823, 5824, 5825];
    const branch5827 = [5827, 5826, 3800, 5829, 5828, 3855, 3858, 3868, 3799, 5830, 5831, 5832, 5833];
    expect(on.nodes).toEqual(sorted([5818, 3806, ...branch5820, ...branch5827]));
    expect(on.links).toHaveLength(33);
    const off = await exported(`nodes=${uuid}&call_work_backward=false`);
    expect(off.nodes).toEqual(sorted(branch5820));
    expect(off.links).toHaveLength(12);
  });

  async function uuidOf(pk: number): Promise<string> {
    const r = await served.app.inject(`/api/v4/nodes/?id=${pk}&attributes=false`);
    return (r.json() as { data: { nodes: { uuid: string }[] } }).data.nodes[0]!.uuid;
  }
});
