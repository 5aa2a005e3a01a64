/**
 * How cytoscape draws the provenance graph: boxes with type, label and pk, coloured by kind; link labels level,
 * on a backdrop, at the middle of their edge. Captions smaller than MIN_LABEL_PX on screen are not drawn (class
 * `far`: a coloured box is all a far-out view needs; the view shows the hovered or focused node's caption over
 * the frame); the links of the hovered, focused and selected nodes are drawn darker (class `shown`).
 */
import type cytoscape from 'cytoscape';

/** Captions' size at zoom 1, in model pixels. */
export const NODE_FONT = 12;
export const EDGE_FONT = 11;
export const BOX_WIDTH = 150;
export const BOX_HEIGHT = 50;

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
        width: BOX_WIDTH,
        height: BOX_HEIGHT,
        'background-color': c.bg,
        'border-width': 2,
        'border-color': c.muted,
        label: 'data(label)',
        'text-wrap': 'wrap',
        'text-max-width': `${BOX_WIDTH - 12}px`,
        'text-valign': 'center',
        'text-halign': 'center',
        'font-size': NODE_FONT,
        'line-height': 1.15,
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
        height: 34,
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
        'curve-style': 'unbundled-bezier',
        'control-point-distances': 'data(bend)',
        'control-point-weights': 0.5,
        label: 'data(label)',
        'text-wrap': 'wrap',
        'font-size': EDGE_FONT,
        color: c.fg,
        // Level labels on a backdrop read at any edge angle; along the edge they would be tilted.
        'text-rotation': 'none',
        'text-background-color': c.bg,
        'text-background-opacity': 0.9,
        'text-background-padding': '2px',
      },
    },
    { selector: 'edge[?more]', style: { 'line-style': 'dashed', label: '' } },
    { selector: 'edge[call]', style: { 'line-style': 'dotted' } },
    // Too far out to read (cytoscape's own min-zoomed-font-size rounds the zoom to powers of two).
    { selector: '.far', style: { label: '' } },

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
