/**
 * The provenance graph of a node's neighbourhood (`links/tree`), drawn by cytoscape as AiiDA reads it: inputs
 * to the left, outputs to the right, callers above, called processes below (logic/graph-layout.ts), each link
 * named with its label and type. A click (or Enter on the node focused with the arrow keys) shows the node's
 * details beside the graph; its Expand adds its neighbours, placed around it without moving anything drawn; a
 * double click or Open goes to its page. An expansion draws a bounded number of neighbours per direction and
 * one "N more" box that opens the paged link list. The expansions and the selection are in the address, the trail
 * of visited nodes in the tab's session, so a reload draws the same picture. The nodes are also listed below the
 * picture, for screen readers.
 */
import cytoscape from 'cytoscape';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ErrorMessage } from '../../components/Problem.js';
import { Loading } from '../../components/Loading.js';
import type { ProvenanceGraphProps } from '../index.js';
import {
  emptyGraph,
  mergeTree,
  moreMarkers,
  neighbourSides,
  neighboursOf,
  oneLine,
  type Graph,
} from '../logic/graph.js';
import { emptyLayout, placeAround, ROW_HEIGHT, type Layout, type Side } from '../logic/graph-layout.js';
import { extendTrail, readGraphState, writeGraphState, type TrailItem } from '../logic/graph-state.js';
import { fetchFormulas, fetchTree } from './graph-data.js';
import {
  bringIntoView,
  canvasMeasure,
  FIT_PADDING,
  captionOf,
  draw,
  fitReadable,
  keepView,
  nearestInDirection,
  READABLE_ZOOM,
  showAround,
  tipAt,
  wantedHeight,
  zoomBy,
} from './graph-draw.js';
import { NODE_FONT } from '../logic/graph-plan.js';
import { colours, graphStyle } from './graph-style.js';
import { GraphDetails, storedTrail, storeTrail, Trail } from './GraphDetails.js';
import { aimedAt, tapPairs, watchPresses } from './graph-aim.js';
import './by-type.css';
import './graph.css';

export default function ProvenanceGraph({ node, api, onOpen, onMore }: ProvenanceGraphProps) {
  const host = useRef<HTMLDivElement>(null);
  const cy = useRef<cytoscape.Core | undefined>(undefined);
  const graph = useRef<Graph>(emptyGraph());
  const layout = useRef<Layout>(emptyLayout());
  const formulas = useRef(new Map<string, string>());
  /** Neighbours an expansion had no room for at the caption limit, by `node:side`: the "N more" buttons. */
  const waiting = useRef(new Map<string, { of: string; side: Side; ids: string[] }>());
  const expansions = useRef<string[]>([]);
  /** The selected node as the address says it (it may name a node not drawn). */
  const selection = useRef<string | undefined>(undefined);
  const queue = useRef<Promise<void>>(Promise.resolve());
  /** Presses and wheel turns on the picture so far: an answer asked before the last one leaves the view alone. */
  const touched = useRef(0);
  const [, setVersion] = useState(0);
  const [state, setState] = useState<{ loading?: string; error?: Error }>({});
  const [selected, setSelected] = useState<string | undefined>(undefined);
  const [focused, setFocused] = useState<string | undefined>(undefined);
  const [hovered, setHovered] = useState<string | undefined>(undefined);
  const [full, setFull] = useState(false);
  const [zoom, setZoom] = useState(1);
  const [, setPanned] = useState(0);
  const [trail, setTrail] = useState<TrailItem[]>(() => storedTrail(api.base));
  const callbacks = useRef({ onOpen, onMore, select: (_id: string, _restoring?: boolean) => {} });
  const measure = useRef(canvasMeasure());
  const fullRef = useRef(full);
  fullRef.current = full;

  /** The frame grows to show the whole picture at the caption limit, up to most of the window. */
  const grow = (core: cytoscape.Core) => {
    const element = host.current;
    if (!element) return;
    if (fullRef.current) {
      element.style.height = '';
    } else {
      const least = Math.min(320, window.innerHeight * 0.5);
      element.style.height = `${wantedHeight(core, least, Math.max(least, window.innerHeight - 96))}px`;
    }
    keepView(core);
  };

  const remember = (selection: string | undefined) => {
    const search = writeGraphState(window.location.search, {
      expanded: expansions.current,
      selected: selection,
    });
    const url = `${window.location.pathname}${search}${window.location.hash}`;
    if (url !== `${window.location.pathname}${window.location.search}${window.location.hash}`)
      window.history.replaceState(window.history.state, '', url);
  };

  /** `restoring`: a selection the address gave back (a reload) is not a new visit, so the trail keeps its order. */
  const select = (id: string | undefined, restoring = false) => {
    selection.current = id;
    setSelected(id);
    const core = cy.current;
    if (core) {
      core.elements().unselect();
      core.elements('.picked').removeClass('picked shown');
      if (id) core.getElementById(id).select();
    }
    remember(id);
    if (id && !restoring) addToTrail(id);
  };

  const trailHas = (id: string) => storedTrail(api.base).some((t) => t.uuid === id);
  const addToTrail = (id: string) => {
    const caption = oneLine(captionOf(graph.current, formulas.current, id));
    setTrail((before) => {
      const after = extendTrail(before, { uuid: id, caption });
      storeTrail(api.base, after);
      return after;
    });
  };
  callbacks.current = { onOpen, onMore, select };

  /** As many rows as the tallest frame shows at the caption limit: a longer layer is split into sub-columns. */
  const placing = (all = false) => ({
    rows: Math.max(4, Math.floor((window.innerHeight - 96 - 2 * FIT_PADDING) / (READABLE_ZOOM * ROW_HEIGHT))),
    subColumns: all ? Infinity : undefined,
    neighbours: (id: string) => neighboursOf(graph.current, id),
  });

  const wait = (of: string, left: Partial<Record<Side, string[]>>) => {
    for (const [side, ids] of Object.entries(left) as Array<[Side, string[]]>) {
      const key = `${of}:${side}`;
      const before = waiting.current.get(key)?.ids ?? [];
      waiting.current.set(key, { of, side, ids: [...before, ...ids] });
    }
  };

  /** Draws the neighbours an "N more" button stands for, in sub-columns as many as they need. */
  const reveal = (key: string): Promise<void> => {
    queue.current = queue.current.then(() => {
      const core = cy.current;
      const group = waiting.current.get(key);
      if (!core || !group) return;
      waiting.current.delete(key);
      placeAround(layout.current, group.of, { [group.side]: group.ids }, placing(true));
      draw(core, graph.current, layout.current, formulas.current, node.uuid, measure.current);
      grow(core);
      showAround(core, group.of);
      setVersion((v) => v + 1);
    });
    return queue.current;
  };

  /** One expansion at a time, in the order asked: the placement depends on it, and the address replays it. */
  const expand = (uuid: string): Promise<void> => {
    const asked = touched.current;
    queue.current = queue.current.then(async () => {
      const core = cy.current;
      const known = graph.current.nodes.get(uuid);
      if (!core || known?.expanded) return;
      // A node not drawn (an old address) has no place to grow from.
      if (uuid !== node.uuid && !known) return;
      setState({ loading: uuid });
      try {
        const tree = await fetchTree(api, uuid);
        if (cy.current !== core) return;
        const added = mergeTree(graph.current, tree);
        const sides = neighbourSides(tree);
        for (const m of moreMarkers(graph.current)) {
          if (m.of === uuid) sides[m.direction === 'incoming' ? 'left' : 'right'].push(m.id);
        }
        // A node waiting behind "N more" is drawn before its own neighbours are placed around it.
        const hiddenIn = [...waiting.current].find(([, w]) => w.ids.includes(uuid));
        if (hiddenIn && !layout.current.cells.has(uuid)) {
          waiting.current.delete(hiddenIn[0]);
          placeAround(layout.current, hiddenIn[1].of, { [hiddenIn[1].side]: hiddenIn[1].ids }, placing(true));
        }
        wait(uuid, placeAround(layout.current, uuid, sides, placing()).left);
        for (const [id, formula] of await fetchFormulas(api, graph.current, added))
          formulas.current.set(id, formula);
        if (cy.current !== core) return;
        draw(core, graph.current, layout.current, formulas.current, node.uuid, measure.current);
        grow(core);
        // A reader who pressed on the picture since is aiming at what it shows: a late answer does not move it.
        if (touched.current === asked) showAround(core, uuid);
        if (uuid === node.uuid && !trailHas(uuid)) addToTrail(uuid);
        else if (!expansions.current.includes(uuid)) expansions.current.push(uuid);
        remember(selection.current);
        setState({});
        setVersion((v) => v + 1);
      } catch (error) {
        setState({ error: error as Error });
      }
    });
    return queue.current;
  };

  useEffect(() => {
    const element = host.current;
    if (!element) return;
    graph.current = emptyGraph();
    layout.current = emptyLayout();
    waiting.current = new Map();
    formulas.current = new Map();
    expansions.current = [];
    queue.current = Promise.resolve();
    const core = cytoscape({
      container: element,
      style: graphStyle(colours(element), node.uuid),
      layout: { name: 'preset' },
      // Never so far out that a caption reads under MIN_LABEL_PX; a lone node stays modest.
      minZoom: READABLE_ZOOM,
      maxZoom: 2.5,
      autoungrabify: true,
      boxSelectionEnabled: false,
      selectionType: 'single',
    });
    cy.current = core;
    touched.current = 0;
    const stopWatching = watchPresses(core, element, () => touched.current++);
    core.on('zoom', () => setZoom(core.zoom()));
    const onTap = (el: cytoscape.NodeSingular) => {
      const data = el.data() as {
        id: string;
        more?: boolean;
        of: string;
        direction: 'incoming' | 'outgoing';
      };
      if (data.more) return callbacks.current.onMore(data.of, data.direction);
      setFocused(data.id);
      callbacks.current.select(data.id);
    };
    core.on('tap', 'node', (event) => onTap(event.target as cytoscape.NodeSingular));
    const taps = tapPairs();
    core.on('tap', (event) => {
      const aimed = event.target === core ? aimedAt(core, event.renderedPosition) : undefined;
      taps.tapped(event.target === core ? aimed?.id() : (event.target.id() as string));
      if (aimed) onTap(aimed);
    });
    core.on('dbltap', 'node[!more]', (event) => {
      const id = event.target.id() as string;
      if (taps.both(id)) callbacks.current.onOpen(id);
    });
    // The frame changes size with the details panel and full screen, not only with the window.
    const resized = new ResizeObserver(() => keepView(core));
    resized.observe(element);
    core.on('mouseover', 'node', (event) => setHovered(event.target.id() as string));
    core.on('mouseout', 'node', () => setHovered(undefined));
    // A moved view leaves the pointer elsewhere: its caption would be left over the wrong box.
    core.on('viewport', () => {
      setHovered(undefined);
      // The caption shown over the frame follows its node when the view pans.
      setPanned((n) => n + 1);
    });
    // Restore what the address says: the page's node, then each expansion in order, then the selection.
    const saved = readGraphState(window.location.search);
    void expand(node.uuid);
    for (const uuid of saved.expanded) void expand(uuid);
    void queue.current.then(() => {
      if (cy.current !== core) return;
      // A restored picture is shown whole, as Fit shows it (unless the reader is at work on it already).
      if (saved.expanded.length > 0 && touched.current === 0) fitReadable(core, undefined, node.uuid);
      if (saved.selected) callbacks.current.select(saved.selected, true);
    });
    return () => {
      stopWatching();
      resized.disconnect();
      core.destroy();
      cy.current = undefined;
    };
  }, [node.uuid, api]);

  // The links of the hovered, focused and selected nodes stand out.
  useEffect(() => {
    const core = cy.current;
    if (!core) return;
    core.elements('.shown').removeClass('shown');
    for (const id of [hovered, focused, selected]) {
      if (!id) continue;
      const el = core.getElementById(id);
      el.addClass('shown');
      el.connectedEdges().addClass('shown');
    }
    core.nodes('.focused').removeClass('focused');
    if (focused) core.getElementById(focused).addClass('focused');
  }, [hovered, focused, selected, zoom]);

  // Full screen: the frame takes the window; the page behind does not scroll; Escape leaves.
  useEffect(() => {
    const core = cy.current;
    if (core) {
      // Its size is taken now (so the resize observer finds nothing left to scale), and the picture fitted to it.
      grow(core);
      fitReadable(core, undefined, node.uuid);
    }
    if (!full) return;
    const overflow = document.body.style.overflow;
    document.body.style.overflow = 'hidden';
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') setFull(false);
    };
    document.addEventListener('keydown', onKey);
    return () => {
      document.body.style.overflow = overflow;
      document.removeEventListener('keydown', onKey);
    };
  }, [full]);

  const onKeyDown = (event: KeyboardEvent) => {
    const core = cy.current;
    if (!core) return;
    const current = focused ?? selected ?? node.uuid;
    const isDrawn = (id: string) => core.getElementById(id).length > 0;
    if (event.key.startsWith('Arrow')) {
      const next = focused
        ? nearestInDirection(layout.current.cells, current, event.key as 'ArrowLeft', isDrawn)
        : current;
      event.preventDefault();
      if (next && !next.startsWith('more:')) {
        setFocused(next);
        bringIntoView(core, next);
      }
    } else if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      setFocused(current);
      select(current);
    } else if (event.key === '+') {
      event.preventDefault();
      void expand(current);
    }
  };

  const reset = () => {
    const core = cy.current;
    if (!core) return;
    core.elements().remove();
    graph.current = emptyGraph();
    layout.current = emptyLayout();
    waiting.current = new Map();
    expansions.current = [];
    setFocused(undefined);
    select(undefined);
    void expand(node.uuid);
  };

  const g = graph.current;
  const markers = moreMarkers(g);
  const drawnNodes = [...g.nodes.values()].filter((n) => layout.current.cells.has(n.id));
  const waitingGroups = [...waiting.current]
    .map(([key, w]) => ({ key, ...w, count: w.ids.filter((id) => g.nodes.has(id)).length }))
    .filter((w) => w.count > 0);
  const tipFor = hovered ?? focused;
  const tip = tipFor ? tipAt(cy.current, tipFor) : undefined;
  const selectedNode = selected ? g.nodes.get(selected) : undefined;
  return (
    <div class={full ? 'bt-view pg pg-full' : 'bt-view pg'} data-view="provenance">
      <p class="bt-muted bt-graph-legend">
        Inputs left, outputs right, callers above, called below. <span class="bt-swatch bt-data" /> data{' '}
        <span class="bt-swatch bt-calculation" /> calculation <span class="bt-swatch bt-workflow" /> workflow;
        dashed: not expanded. Click a node (or focus the graph and press Enter) for its details, double-click
        to open it.
      </p>
      <div class="bt-graph-controls" role="toolbar" aria-label="Graph view">
        <button type="button" class="bt-button" onClick={() => zoomBy(cy.current, 1.25)}>
          Zoom in
        </button>
        <button type="button" class="bt-button" onClick={() => zoomBy(cy.current, 0.8)}>
          Zoom out
        </button>
        <button
          type="button"
          class="bt-button"
          onClick={() => cy.current && fitReadable(cy.current, undefined, selected ?? node.uuid)}
        >
          Fit
        </button>
        <button type="button" class="bt-button" onClick={() => reset()}>
          Reset
        </button>
        <button type="button" class="bt-button" aria-pressed={full} onClick={() => setFull(!full)}>
          Full screen
        </button>
      </div>
      <Trail items={trail} />
      {/* Until a node is picked the picture has the whole width; then its details take a column beside it. */}
      <div class={selected ? 'pg-body pg-with-panel' : 'pg-body'}>
        <div class="pg-canvas">
          <div
            ref={host}
            tabIndex={0}
            onKeyDown={onKeyDown}
            aria-busy={state.loading ? 'true' : 'false'}
            data-label-px={Math.round(NODE_FONT * zoom * 10) / 10}
            data-rows={placing().rows}
            data-zoom={zoom}
            class="bt-graph pg-frame"
            data-testid="provenance-graph"
            role="group"
            aria-roledescription="graph"
            aria-label={`Provenance graph around ${node.label || node.uuid}: ${drawnNodes.length} nodes, ${g.edges.size} links. Arrow keys move between nodes, Enter shows a node's details, + adds its neighbours; the list below has the same nodes`}
          />
          {tip && (
            <div class="pg-tip" style={{ left: `${tip.x}px`, top: `${tip.y}px` }} aria-hidden="true">
              {tip.text}
            </div>
          )}
        </div>
        {selected && (
          <aside class="pg-panel" aria-label="Details of the selected node">
            <GraphDetails
              key={selected}
              uuid={selected}
              api={api}
              drawn={selectedNode !== undefined}
              expanded={selectedNode?.expanded ?? false}
              onExpand={() => void expand(selected)}
              onClose={() => select(undefined)}
            />
          </aside>
        )}
      </div>
      {state.loading && <Loading what="Loading the neighbourhood" />}
      {state.error && <ErrorMessage error={state.error} what="the neighbourhood" />}
      {selectedNode && (
        <p data-testid="graph-selection" class="visually-hidden" aria-live="polite">
          Selected: {oneLine(captionOf(g, formulas.current, selectedNode.id))}
        </p>
      )}
      {markers.length + waitingGroups.length > 0 && (
        <p class="bt-muted pg-after" data-testid="graph-more">
          Not drawn:{' '}
          {waitingGroups.map((w) => (
            <button
              key={w.key}
              type="button"
              class="bt-button bt-more"
              data-testid="graph-reveal"
              onClick={() => void reveal(w.key)}
            >
              Show {w.count.toLocaleString('en-US')} more{' '}
              {w.side === 'left' ? 'inputs' : w.side === 'right' ? 'outputs' : 'links'} of{' '}
              {oneLine(captionOf(g, formulas.current, w.of))}
            </button>
          ))}
          {markers.map((m) => (
            <button
              key={m.id}
              type="button"
              class="bt-button bt-more"
              onClick={() => onMore(m.of, m.direction)}
            >
              {m.count.toLocaleString('en-US')} more {m.direction} of{' '}
              {oneLine(captionOf(g, formulas.current, m.of))}
            </button>
          ))}
        </p>
      )}
      <details class="pg-after">
        <summary>Nodes in the graph ({drawnNodes.length})</summary>
        <ul data-testid="graph-nodes">
          {drawnNodes.map((n) => (
            <li key={n.id}>
              {oneLine(captionOf(g, formulas.current, n.id))}{' '}
              <button type="button" class="bt-button" onClick={() => select(n.id)}>
                Details
              </button>{' '}
              {!n.expanded && (
                <button type="button" class="bt-button" onClick={() => void expand(n.id)}>
                  Expand
                </button>
              )}{' '}
              {n.id !== node.uuid && (
                <button type="button" class="bt-button" onClick={() => onOpen(n.id)}>
                  Open
                </button>
              )}
            </li>
          ))}
        </ul>
      </details>
    </div>
  );
}
