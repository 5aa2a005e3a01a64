/**
 * Every structure of the rich data (the archive, and the same data as a PostgreSQL profile where PostgreSQL is
 * installed), as its page shows it in Chromium and as its CIF download says: the same
 * Hill formula and the same space group. The CIFs are P1 (the cell and every atom, no symmetry), so the group is
 * found from the atoms: by moyo in Node (the library the page runs as WebAssembly), at the page's default
 * tolerance, from the CIF's cell parameters and fractional coordinates, never from the attributes the page reads.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { analyze_cell, initSync } from '@spglib/moyo-wasm';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cifStructure } from '../../web/src/by-type/logic/cif.js';
import { hillFormula } from '../../web/src/by-type/logic/structure.js';
import { RICH_SOURCES, serveRich, type ServedRich } from './rich-sources.js';
import { browserMissing, launchBrowser, serveExplorer, watchedPage, type ApiNode } from './support.js';

const missing = browserMissing();
/** The page's default tolerance (Å). */
const TOLERANCE = 1e-3;

interface Attributes {
  kinds: { name: string; symbols: string[]; weights: number[] }[];
  sites: { kind_name: string }[];
  pbc1: boolean;
  pbc2: boolean;
  pbc3: boolean;
}

/** The space group of a CIF's atoms, each element a species. */
function cifSpaceGroup(cif: ReturnType<typeof cifStructure>): { number: number; operations: number } {
  const species = [...new Set(cif.unitCell.map((s) => s.symbol))];
  const data = analyze_cell(
    JSON.stringify({
      lattice: { basis: cif.cell.flat() },
      positions: cif.unitCell.map((s) => s.fractional),
      numbers: cif.unitCell.map((s) => species.indexOf(s.symbol) + 1),
    }),
    TOLERANCE,
    'Standard',
  );
  return { number: data.number, operations: data.operations.length };
}

describe.skipIf(missing !== undefined).each(RICH_SOURCES)(
  'structures: the page and the CIF download agree (rich data, %s)',
  (source) => {
    let served: Awaited<ReturnType<typeof serveExplorer>>;
    let browser: Browser;
    let rich: ServedRich | undefined;

    beforeAll(async () => {
      const wasm = createRequire(import.meta.url).resolve('@spglib/moyo-wasm/moyo_wasm_bg.wasm');
      initSync({ module: readFileSync(wasm) });
      [rich, browser] = await Promise.all([serveRich(source), launchBrowser()]);
      served = rich.served;
    });
    afterAll(async () => {
      await browser?.close();
      rich?.stop();
    });

    it('shows the formula and space group of every structure as its CIF gives them', async () => {
      const listed = await served.api<{ nodes: ApiNode[] }>(
        `/nodes/?full_type=${encodeURIComponent('"data.core.structure.StructureData.|"')}&limit=400&orderby=id`,
      );
      const structures = listed.data.nodes;
      expect(structures.length).toBe(listed.total);
      expect(structures.length).toBeGreaterThan(50);
      const watched = await watchedPage(browser, { viewport: { width: 1366, height: 900 } });
      const { page } = watched;
      const compared = { formulas: 0, groups: 0, splitKinds: 0, alloys: 0 };
      try {
        for (const node of structures) {
          const { attributes } = (
            await served.api<{ attributes: Attributes }>(`/nodes/${node.uuid}/contents/attributes/`)
          ).data;
          const response = await fetch(
            `${served.base}/api/v4/nodes/${node.uuid}/download?download_format=cif`,
          );
          const alloy = attributes.kinds.some((k) => k.symbols.length !== 1 || k.weights[0]! < 1);
          if (alloy) {
            // A CIF cannot hold alloys or vacancies; the API says so instead of writing a wrong file.
            expect(response.status, node.uuid).toBe(400);
            compared.alloys++;
            continue;
          }
          expect(response.status, node.uuid).toBe(200);
          const cif = cifStructure(await response.text());
          // P1, or no symmetry at all (what ASE writes for a slab or a layer).
          expect([undefined, 'P 1'], node.uuid).toContain(cif.spaceGroup);
          expect(cif.unitCell.length, node.uuid).toBe(attributes.sites.length);

          await page.goto(`${served.base}/nodes/${node.uuid}`);
          const formula = page.getByTestId('formula');
          await expect.poll(() => formula.textContent(), { timeout: 20_000 }).not.toBe('');
          expect(await formula.textContent(), `formula of ${node.uuid}`).toBe(
            hillFormula(cif.unitCell.map((s) => s.symbol)),
          );
          compared.formulas++;

          // A structure without a periodic direction (a molecule) has no space group on its page.
          if (![attributes.pbc1, attributes.pbc2, attributes.pbc3].some(Boolean)) {
            expect(await page.getByTestId('space-group').count()).toBe(0);
            continue;
          }
          const expected = cifSpaceGroup(cif);
          const number = page.getByTestId('space-group-number');
          await expect.poll(() => number.textContent(), { timeout: 20_000 }).toMatch(/^\d+$/);
          const elements = page.getByTestId('space-group-elements-number');
          if ((await elements.count()) > 0) {
            // Kinds tell atoms of one element apart (Fe1, Fe2): the page gives the kinds' group, a subgroup of
            // the CIF's (whose order it divides), and beside it the elements' group, which is the CIF's.
            expect(await elements.textContent(), `elements' group of ${node.uuid}`).toBe(
              String(expected.number),
            );
            const operations = Number(
              /(\d+) operations/.exec((await page.getByTestId('space-group').textContent())!)![1],
            );
            expect(expected.operations % operations, node.uuid).toBe(0);
            compared.splitKinds++;
          } else {
            expect(await number.textContent(), `space group of ${node.uuid}`).toBe(String(expected.number));
          }
          compared.groups++;
        }
        // The archive holds periodic crystals, molecules, kinds that split an element and alloys: all were met.
        expect(compared.groups).toBeGreaterThan(30);
        expect(compared.formulas).toBeGreaterThan(compared.groups);
        expect(compared.splitKinds).toBeGreaterThan(0);
        expect(compared.alloys).toBeGreaterThan(0);
        expect(watched.problems).toEqual([]);
      } finally {
        await page.context().close();
      }
      // One page a structure (73), each with its 3D view: one to two seconds each on a busy machine.
    }, 480_000);
  },
);
