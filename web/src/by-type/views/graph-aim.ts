/**
 * Clicks on the provenance graph land where the reader aimed, even when the picture moved just before: content
 * above the frame filled in (cytoscape reads the frame's place on the page only after scrolls and resizes), the
 * frame changed size, or a late answer re-laid the view between the reader's aim and their press. A double click
 * is two clicks on one node, not two quick clicks anywhere.
 */
import type cytoscape from 'cytoscape';

/** How long after a move the reader did not make a press may still be aimed at the picture before it. */
export const AIM_MS = 1000;

interface View {
  zoom: number;
  pan: { x: number; y: number };
  at: number;
}

const before = new WeakMap<cytoscape.Core, View>();

/** To be called before the view is moved by anything but the reader (a resize, an answer, a restored address). */
export function movingView(core: cytoscape.Core): void {
  before.set(core, { zoom: core.zoom(), pan: { ...core.pan() }, at: Date.now() });
}

/**
 * The node a press at `rendered` (frame pixels) that hit nothing was aimed at: the one drawn there in the view
 * before the last move the reader did not make, if that move was under AIM_MS ago.
 */
export function aimedAt(
  core: cytoscape.Core,
  rendered: { x: number; y: number },
  now = Date.now(),
): cytoscape.NodeSingular | undefined {
  const view = before.get(core);
  if (!view || now - view.at > AIM_MS) return undefined;
  const x = (rendered.x - view.pan.x) / view.zoom;
  const y = (rendered.y - view.pan.y) / view.zoom;
  const hit = core.nodes().filter((n) => {
    const box = n.boundingBox({ includeLabels: false, includeOverlays: false });
    return x >= box.x1 && x <= box.x2 && y >= box.y1 && y <= box.y2;
  });
  return hit.length > 0 ? hit[0] : undefined;
}

/**
 * Presses and wheel turns on the frame are counted (`onTouch`; an answer asked before the last one leaves the
 * view alone), and the frame's place on the page is read again at each press and each entry of the pointer.
 * Returns the function that stops listening.
 */
export function watchPresses(core: cytoscape.Core, element: HTMLElement, onTouch: () => void): () => void {
  const onPress = () => {
    onTouch();
    // Public and cheap: makes cytoscape read the frame's size and place again.
    core.resize();
  };
  const onEnter = () => core.resize();
  element.addEventListener('pointerdown', onPress, true);
  element.addEventListener('pointerenter', onEnter);
  element.addEventListener('wheel', onTouch, { capture: true, passive: true });
  return () => {
    element.removeEventListener('pointerdown', onPress, true);
    element.removeEventListener('pointerenter', onEnter);
    element.removeEventListener('wheel', onTouch, true);
  };
}

/**
 * cytoscape (3.34) makes any two taps within its multiClickDebounceTime (250 ms) a double tap, on the node of the
 * second even when the first was on another node or on nothing: a reader who clicked one node and at once another
 * was sent to the second one's page (the graph tests saw it as a lost click). A double tap opens a node only when
 * the tap before it was on that node too.
 */
export function tapPairs() {
  let before: string | undefined;
  let last: string | undefined;
  return {
    /** Every tap on the picture, with the node it was on or aimed at (undefined: nothing). */
    tapped(id: string | undefined): void {
      before = last;
      last = id;
    },
    /** Whether a double tap that cytoscape reports on `id` is two taps on it. */
    both(id: string): boolean {
      return before === id && last === id;
    },
  };
}
