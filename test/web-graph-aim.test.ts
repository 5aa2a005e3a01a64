/**
 * A press on the provenance graph that hits nothing, just after the view moved without the reader (a resize, a
 * late answer), selects the node that was drawn there before the move; a double tap is two taps on one node
 * (web/src/by-type/views/graph-aim.ts).
 * Cytoscape headless: the same model and geometry as in the page, without a canvas.
 */
import cytoscape from 'cytoscape';
import { describe, expect, it } from 'vitest';
import { AIM_MS, aimedAt, movingView, tapPairs } from '../web/src/by-type/views/graph-aim.js';

function picture(): cytoscape.Core {
  const core = cytoscape({
    headless: true,
    layout: { name: 'preset' },
    styleEnabled: true,
    style: [{ selector: 'node', style: { width: 40, height: 20 } }],
    elements: [
      { data: { id: 'calc' }, position: { x: 0, y: 0 } },
      { data: { id: 'structure' }, position: { x: -200, y: 0 } },
    ],
  });
  core.viewport({ zoom: 1, pan: { x: 300, y: 100 } });
  return core;
}

describe('a press aimed at the picture before a move', () => {
  it('finds the node drawn there before the move, for a second', () => {
    const core = picture();
    // The structure is drawn at (100, 100) on screen; then the view is fitted elsewhere. The clock is read after
    // the move is noted, so that a millisecond passing between the two cannot put `AIM_MS + 1` inside the second.
    movingView(core);
    const start = Date.now();
    core.viewport({ zoom: 2, pan: { x: 50, y: 400 } });
    expect(aimedAt(core, { x: 100, y: 100 }, start + 200)?.id()).toBe('structure');
    expect(aimedAt(core, { x: 305, y: 95 }, start + 200)?.id()).toBe('calc');
    // Ids are compared: a failing expectation on a cytoscape element makes the runner print its whole graph of
    // objects, which ran the test process out of memory. Where nothing was drawn, nothing; after AIM_MS, the press is the reader's on the new picture.
    expect(aimedAt(core, { x: 200, y: 100 }, start + 200)?.id()).toBeUndefined();
    expect(aimedAt(core, { x: 100, y: 100 }, start + AIM_MS + 1)?.id()).toBeUndefined();
  });

  it('finds nothing when the view never moved without the reader', () => {
    expect(aimedAt(picture(), { x: 100, y: 100 })?.id()).toBeUndefined();
  });
});

describe('a double tap', () => {
  it('is two taps on one node, not two quick taps on two nodes or on nothing', () => {
    const taps = tapPairs();
    taps.tapped('calc');
    taps.tapped('structure');
    // cytoscape reports a double tap on the structure here: the reader clicked two nodes.
    expect(taps.both('structure')).toBe(false);
    taps.tapped('structure');
    expect(taps.both('structure')).toBe(true);
    taps.tapped(undefined);
    taps.tapped('calc');
    expect(taps.both('calc')).toBe(false);
  });
});
