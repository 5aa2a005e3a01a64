/**
 * What the provenance graph's browser tests read off the canvas: cytoscape keeps its instance on its container
 * (`_cyreg`), so a test can ask where each node is drawn, as a person sees it, and click it there.
 */
import type { Page } from 'playwright-core';
import { problems } from '../../web/src/by-type/logic/graph-geometry.js';
import { MIN_FOCUS_PX, MIN_LABEL_PX } from '../../web/src/by-type/logic/graph.js';

export interface Drawn {
  /** The frame's size in CSS pixels. */
  width: number;
  height: number;
  zoom: number;
  nodes: Array<{ id: string; x: number; y: number; x1: number; x2: number; y1: number; y2: number }>;
}

const GRAPH = '[data-testid="provenance-graph"]';

/** Every drawn node's box on screen, relative to the frame, and the model position of its centre. */
export function drawn(page: Page): Promise<Drawn> {
  return page.locator(GRAPH).evaluate((element) => {
    interface El {
      id(): string;
      position(): { x: number; y: number };
      renderedBoundingBox(o: object): { x1: number; x2: number; y1: number; y2: number };
    }
    const cy = (
      element as unknown as {
        _cyreg: { cy: { nodes(): El[]; width(): number; height(): number; zoom(): number } };
      }
    )._cyreg.cy;
    return {
      width: cy.width(),
      height: cy.height(),
      zoom: cy.zoom(),
      nodes: cy.nodes().map((n) => {
        // Labels are inside the boxes: the box is what must be in the frame.
        const box = n.renderedBoundingBox({ includeLabels: false, includeOverlays: false });
        return { id: n.id(), ...n.position(), x1: box.x1, x2: box.x2, y1: box.y1, y2: box.y2 };
      }),
    };
  });
}

/**
 * A click on a node where it is drawn (the view moved first, as a person would, if it is outside). The point is
 * taken relative to the frame and the frame found at the time of the click, so that the page moving meanwhile (a
 * panel filling in) cannot send the click elsewhere.
 */
export async function clickNode(page: Page, id: string): Promise<void> {
  // As a person waits for a moving picture to stop: the same place twice, a fifth of a second apart (at most 5 s).
  let position = await whereIs(page, id);
  for (let waited = 0; waited < 5_000; waited += 200) {
    await page.waitForTimeout(200);
    const now = await whereIs(page, id);
    const still = Math.abs(now.x - position.x) < 0.5 && Math.abs(now.y - position.y) < 0.5;
    position = now;
    if (still) break;
  }
  await page.locator(GRAPH).click({ position });
}

/** Where a node is drawn, relative to the frame (the view moved first if it is outside). */
export function whereIs(page: Page, id: string): Promise<{ x: number; y: number }> {
  return page.locator(GRAPH).evaluate((element, uuid) => {
    interface El {
      renderedPosition(): { x: number; y: number };
    }
    const cy = (
      element as unknown as {
        _cyreg: {
          cy: {
            getElementById(i: string): El;
            width(): number;
            height(): number;
            center(e: El): void;
          };
        };
      }
    )._cyreg.cy;
    const el = cy.getElementById(uuid);
    let p = el.renderedPosition();
    if (p.x < 10 || p.y < 10 || p.x > cy.width() - 10 || p.y > cy.height() - 10) {
      cy.center(el);
      p = el.renderedPosition();
    }
    return { x: p.x, y: p.y };
  }, id);
}

/** Waits until no neighbourhood is loading and the graph has at least `count` nodes listed. */
export async function settled(page: Page, count = 1): Promise<number> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const busy = await page.locator(GRAPH).getAttribute('aria-busy');
    const listed = await page.locator('[data-testid="graph-nodes"] li').count();
    if (busy === 'false' && listed >= count) return listed;
    if (Date.now() > deadline) throw new Error(`the graph did not settle (busy ${busy}, ${listed} nodes)`);
    await page.waitForTimeout(100);
  }
}

export interface Readability {
  zoom: number;
  /** Nodes with some part in the frame. */
  inFrame: number;
  /** Every node in the frame whose caption is drawn under its limit (10 CSS px; 12 for the page's own node). */
  small: string[];
  /** Links through boxes, overlapping labels, captions out of their boxes (graph-geometry.ts). */
  problems: string[];
}

/**
 * What a reader of the drawn graph meets, from cytoscape's own geometry: caption sizes on screen (zoom times font
 * size), links' routes, labels' and captions' boxes, checked by the same functions as the layout's unit tests.
 */
export async function readability(page: Page, centre: string): Promise<Readability> {
  const raw = await page.locator(GRAPH).evaluate((element) => {
    type BB = { x1: number; x2: number; y1: number; y2: number; w: number };
    interface El {
      id(): string;
      data(k: string): unknown;
      isNode(): boolean;
      boundingBox(o: object): BB;
      renderedBoundingBox(o: object): BB;
      source(): El;
      target(): El;
      sourceEndpoint(): { x: number; y: number };
      targetEndpoint(): { x: number; y: number };
      segmentPoints(): Array<{ x: number; y: number }> | undefined;
      pstyle(k: string): { pfValue: number; strValue: string };
    }
    const cy = (
      element as unknown as {
        _cyreg: { cy: { nodes(): El[]; edges(): El[]; width(): number; height(): number; zoom(): number } };
      }
    )._cyreg.cy;
    const box = (b: BB) => ({ x1: b.x1, x2: b.x2, y1: b.y1, y2: b.y2 });
    const labelOnly = {
      includeNodes: false,
      includeEdges: false,
      includeLabels: true,
      includeOverlays: false,
    };
    return {
      width: cy.width(),
      height: cy.height(),
      zoom: cy.zoom(),
      nodes: cy.nodes().map((n) => {
        const caption = n.boundingBox(labelOnly);
        return {
          id: n.id(),
          font: n.pstyle('font-size').pfValue,
          box: box(n.boundingBox({ includeLabels: false, includeOverlays: false })),
          rendered: box(n.renderedBoundingBox({ includeLabels: false, includeOverlays: false })),
          caption: caption.w > 0 ? box(caption) : undefined,
        };
      }),
      edges: cy.edges().map((e) => {
        const label = e.boundingBox({
          ...labelOnly,
          includeMainLabels: true,
          includeSourceLabels: true,
          includeTargetLabels: true,
        });
        return {
          id: e.id(),
          source: e.source().id(),
          target: e.target().id(),
          path: [e.sourceEndpoint(), ...(e.segmentPoints() ?? []), e.targetEndpoint()],
          label: label.w > 0 ? box(label) : undefined,
        };
      }),
    };
  });
  const inFrame = raw.nodes.filter(
    (n) => n.rendered.x2 > 0 && n.rendered.x1 < raw.width && n.rendered.y2 > 0 && n.rendered.y1 < raw.height,
  );
  const small = inFrame
    .filter((n) => n.font * raw.zoom < (n.id === centre ? MIN_FOCUS_PX : MIN_LABEL_PX) - 0.01)
    .map((n) => `${n.id} at ${(n.font * raw.zoom).toFixed(1)} px`);
  // The caption's box is one pixel larger each side than its text (cytoscape's allowance for antialiasing).
  const nodes = raw.nodes.map((n) => ({
    ...n,
    caption: n.caption && {
      x1: n.caption.x1 + 1,
      x2: n.caption.x2 - 1,
      y1: n.caption.y1 + 1,
      y2: n.caption.y2 - 1,
    },
  }));
  return { zoom: raw.zoom, inFrame: inFrame.length, small, problems: problems(nodes, raw.edges) };
}

/**
 * Words of the tables inside `scope` that are drawn across two lines other than after a hyphen or slash (broken
 * inside, as "rando m-017"), each with the text of its cell. A word is what lies between spaces; one wider than
 * the scope's box has to break somewhere and is not counted.
 */
export function brokenWords(page: Page, scope: string): Promise<string[]> {
  return page.evaluate((selector) => {
    const found: string[] = [];
    const lineOf = (node: Node, at: number) => {
      const range = document.createRange();
      range.setStart(node, at);
      range.setEnd(node, at + 1);
      const rect = [...range.getClientRects()].find((r) => r.width > 0);
      return rect ? Math.round(rect.top) : undefined;
    };
    for (const root of document.querySelectorAll(selector)) {
      const room = root.getBoundingClientRect().width;
      for (const cell of root.querySelectorAll('td, th')) {
        const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          const text = node.textContent ?? '';
          for (const match of text.matchAll(/\S+/g)) {
            const whole = document.createRange();
            whole.setStart(node, match.index);
            whole.setEnd(node, match.index + match[0].length);
            const width = [...whole.getClientRects()].reduce((sum, r) => sum + r.width, 0);
            if (width > room) continue;
            let line = lineOf(node, match.index);
            for (let i = 1; i < match[0].length; i++) {
              const next = lineOf(node, match.index + i);
              if (
                next !== undefined &&
                line !== undefined &&
                next !== line &&
                !'-/'.includes(match[0][i - 1]!)
              ) {
                found.push(`"${match[0]}" in "${(cell.textContent ?? '').trim().slice(0, 60)}"`);
                break;
              }
              line = next ?? line;
            }
          }
        }
      }
    }
    return found;
  }, scope);
}

/** A drawn node in the frame whose caption was cut short: where it is and its whole caption (none: undefined). */
export function cutCaption(page: Page): Promise<{ at: { x: number; y: number }; full: string } | undefined> {
  return page.locator(GRAPH).evaluate((element) => {
    interface El {
      data(k: string): unknown;
      renderedPosition(): { x: number; y: number };
    }
    const cy = (
      element as unknown as { _cyreg: { cy: { nodes(): El[]; width(): number; height(): number } } }
    )._cyreg.cy;
    const n = cy.nodes().find((e) => {
      const p = e.renderedPosition();
      return (
        e.data('cut') === true && p.x > 10 && p.y > 10 && p.x < cy.width() - 10 && p.y < cy.height() - 10
      );
    });
    return n ? { at: n.renderedPosition(), full: String(n.data('full')) } : undefined;
  });
}
