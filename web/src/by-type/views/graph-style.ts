/**
 * How cytoscape draws the provenance graph: boxes sized to their captions (type, label, pk; logic/graph-plan.ts),
 * coloured by kind; links along their orthogonal routes (logic/graph-routes.ts), each label level on a backdrop
 * beside one of its boxes; the links of the hovered, focused and selected nodes darker (class `shown`).
 */
import type cytoscape from 'cytoscape';
import { EDGE_FONT, LINE_HEIGHT } from '../logic/graph-plan.js';

/** The font captions are drawn and measured in. */
export const FONT_FAMILY =
  'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif';

export interface Colours {
  fg: string;
  muted: string;
  bg: string;
  focus: string;
  data: string;
  calculation: string;
  workflow: string;
}

export function colours(element: Element): Colours {
  const style = getComputedStyle(element);
  const v = (name: string, fallback: string) => style.getPropertyValue(name).trim() || fallback;
  return {
    fg: v('--bt-fg', '#1b1f24'),
    muted: v('--bt-muted', '#57606a'),
    bg: v('--bt-bg', '#ffffff'),
    focus: v('--bt-focus', '#0969da'),
    data: v('--bt-data', '#2f6fb0'),
    calculation: v('--bt-calc', '#b35900'),
    workflow: v('--bt-work', '#6f42c1'),
  };
}

export function graphStyle(c: Colours, centre: string): cytoscape.StylesheetJson {
  return [
    {
      selector: 'node',
      style: {
        shape: 'round-rectangle',
        width: 'data(w)',
        height: 'data(h)',
        'background-color': c.bg,
        'border-width': 2,
        'border-color': c.muted,
        label: 'data(label)',
        // The lines are cut to fit already: wrapping only at the newlines between them.
        'text-wrap': 'wrap',
        'text-max-width': '400px',
        'text-valign': 'center',
        'text-halign': 'center',
        'font-family': FONT_FAMILY,
        'font-size': 'data(font)',
        'line-height': LINE_HEIGHT,
        color: c.fg,
      },
    },
    { selector: 'node[family = "data"]', style: { 'border-color': c.data } },
    { selector: 'node[family = "calculation"]', style: { 'border-color': c.calculation, 'border-width': 3 } },
    {
      selector: 'node[family = "workflow"]',
      style: { 'border-color': c.workflow, 'border-width': 3, 'border-style': 'double' },
    },
    // Not yet expanded: a dashed frame says there is more around it.
    { selector: 'node[!expanded][!more]', style: { 'border-style': 'dashed' } },
    { selector: `node[id = "${centre}"]`, style: { 'border-width': 5 } },
    {
      selector: 'node[?more]',
      style: {
        'border-color': c.focus,
        'border-width': 1,
        'border-style': 'dashed',
        color: c.focus,
      },
    },
    {
      selector: 'edge',
      style: {
        width: 1.5,
        'line-color': c.muted,
        'target-arrow-color': c.muted,
        'target-arrow-shape': 'triangle',
        'curve-style': 'straight',
        'font-family': FONT_FAMILY,
        'font-size': EDGE_FONT,
        color: c.fg,
        label: 'data(mid)',
        'source-label': 'data(atSource)',
        'target-label': 'data(atTarget)',
        'source-text-offset': 'data(offset)',
        'target-text-offset': 'data(offset)',
        // Level labels on a backdrop read at any edge angle; along the edge they would be tilted.
        'text-rotation': 'none',
        'text-background-color': c.bg,
        'text-background-opacity': 1,
        'text-background-padding': '2px',
      },
    },
    {
      selector: 'edge[?bent]',
      style: {
        'curve-style': 'segments',
        'edge-distances': 'node-position',
        'segment-weights': 'data(weights)',
        'segment-distances': 'data(distances)',
      } as cytoscape.Css.Edge,
    },
    { selector: 'edge[?more]', style: { 'line-style': 'dashed' } },
    { selector: 'edge[?call]', style: { 'line-style': 'dotted', width: 2 } },

    { selector: 'edge.shown', style: { 'line-color': c.fg, 'target-arrow-color': c.fg, width: 2.5 } },
    {
      selector: 'node:selected',
      style: { 'border-color': c.focus, 'border-width': 5, 'border-style': 'solid', 'overlay-opacity': 0 },
    },
    {
      selector: 'node.focused',
      style: {
        'outline-width': 3,
        'outline-color': c.focus,
        'outline-offset': 3,
        'outline-style': 'solid',
      } as cytoscape.Css.Node,
    },
  ] as cytoscape.StylesheetJson;
}
