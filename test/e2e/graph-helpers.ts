/**
 * What the provenance graph's browser tests read off the canvas: cytoscape keeps its instance on its container
 * (`_cyreg`), so a test can ask where each node is drawn, as a person sees it, and click it there.
 */
import type { Page } from 'playwright-core';

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
