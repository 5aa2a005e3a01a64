/**
 * A calculation's page in Chromium (rich data: the archive, and the PostgreSQL profile where PostgreSQL is
 * installed; a generated archive of 10^5 nodes) starts with what it was given and how it ended: the summary says
 * its state with the exit code and message beside it and the code it ran on which computer (on a phone's first
 * screen, above the graph); the Inputs table lists the code with its computer, the structure with its formula, the
 * parameters unfolded, the k-point mesh and the pseudopotentials by element, each as the API has it.
 */
import { describe, expect, it } from 'vitest';
import { seriousViolations } from './axe.js';
import { browserMissing, screenshot, watchedPage, type ApiNode } from './support.js';
import { ALL_SOURCES, richExplorer } from './rich-sources.js';

const missing = browserMissing();
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1366, height: 900 };

type Linked = ApiNode & { link_label: string; link_type: string; attributes?: Record<string, unknown> };

/** Every plain value of a dictionary under its dotted key (`SYSTEM.ecutwfc`); lists are left out. */
function plainValues(value: unknown, path = ''): [string, number | string | boolean][] {
  if (typeof value === 'number' || typeof value === 'string' || typeof value === 'boolean')
    return path === '' ? [] : [[path, value]];
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [];
  return Object.entries(value).flatMap(([key, inner]) => plainValues(inner, path ? `${path}.${key}` : key));
}

describe.skipIf(missing !== undefined).each(ALL_SOURCES)(
  'process inputs and state, served from the %s source',
  (source) => {
    const rich = richExplorer(source);

    const firstOfType = (fullType: string, extra = '') =>
      rich.nodesOfType<ApiNode & { attributes?: Record<string, unknown> }>(fullType, extra);

    async function computerLabelOf(codeId: number): Promise<string> {
      const response = await fetch(`${rich.served.base}/api/v4/querybuilder/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          path: [
            { entity_type: 'node.Node.', orm_base: 'node', tag: 'n' },
            { entity_type: 'computer', orm_base: 'computer', tag: 'm', with_node: 'n' },
          ],
          filters: { n: { id: { '==': codeId } } },
          project: { m: ['label'] },
        }),
      });
      return ((await response.json()) as { data: { m: { label: string }[] } }).data.m[0]!.label;
    }

    for (const [name, viewport] of [
      ['desktop', DESKTOP],
      ['phone', PHONE],
    ] as const) {
      it(`a pw calculation's inputs, as the API has them (${name})`, async () => {
        // The first that finished well (on generated data the first ones may still be waiting).
        const calc = (
          await firstOfType(
            'process.calculation.calcjob.CalcJobNode.|aiida.calculations:quantumespresso.pw',
            '&attributes=true&attributes_filter=process_state,exit_status',
          )
        ).find((c) => c.attributes?.process_state === 'finished' && c.attributes.exit_status === 0);
        expect(calc).toBeDefined();
        const incoming = (
          await rich.served.api<{ incoming: Linked[] }>(
            `/nodes/${calc!.uuid}/links/incoming/?attributes=true`,
          )
        ).data.incoming;
        const code = incoming.find((l) => l.link_label === 'code')!;
        const structure = incoming.find((l) => l.link_label === 'structure')!;
        const parameters = incoming.find((l) => l.link_label === 'parameters')!;
        const kpoints = incoming.find((l) => l.link_label === 'kpoints')!;
        const pseudos = incoming.filter((l) => l.node_type.startsWith('data.core.upf.'));
        const formula = (
          await rich.served.api<{ derived_properties: { formula: string } }>(
            `/nodes/${structure.uuid}/contents/derived_properties/`,
          )
        ).data.derived_properties.formula;
        const computer = await computerLabelOf(code.id);

        const watched = await watchedPage(rich.browser, { viewport });
        const { page } = watched;
        try {
          await page.goto(`${rich.served.base}/nodes/${calc!.uuid}`);
          // The summary: state, then the code on its computer, before the graph, on the first screen.
          const state = page.locator('[data-testid="summary-state"]');
          await state.waitFor({ timeout: 20_000 });
          expect(await state.textContent()).toBe('finished');
          expect(await page.locator('[data-testid="summary-exit"]').textContent()).toContain('exit code 0');
          const summaryCode = page.locator('dd[data-field="code"]');
          await summaryCode.waitFor();
          expect(await summaryCode.textContent()).toBe(`${code.label} on ${computer}`);
          const box = await page.locator('dd[data-field="state"]').boundingBox();
          expect(box!.y + box!.height).toBeLessThan(viewport.height);
          // On a phone the graph comes under the summary (beside it on a wide screen).
          const graph = await page.locator('#graph').boundingBox();
          if (viewport === PHONE) expect(box!.y).toBeLessThan(graph!.y);

          const table = page.locator('[data-testid="inputs"]');
          await table.waitFor({ timeout: 20_000 });
          // Code first, with its computer.
          const kinds = await table
            .locator('tbody tr')
            .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-kind')));
          expect(kinds[0]).toBe('code');
          expect(await table.locator('[data-testid="input-code"] a').first().textContent()).toBe(computer);
          expect(
            await table.locator('tr[data-input="structure"] .formula').getAttribute('data-formula'),
          ).toBe(formula);
          // The parameters unfolded: every plain value under its dotted key.
          const values = plainValues(parameters.attributes);
          expect(values.length).toBeGreaterThan(0);
          for (const [key, value] of values) {
            const shown = await table
              .locator(`tr[data-input="parameters"] dd[data-key="${key}"]`)
              .textContent();
            if (typeof value === 'number') expect(Number(shown), key).toBeCloseTo(value, 6);
            else if (typeof value === 'boolean') expect(shown, key).toBe(value ? 'True' : 'False');
            else expect(shown, key).toBe(value);
          }
          const mesh = (kpoints.attributes!.mesh as number[]).join(' × ');
          expect(await table.locator('tr[data-input="kpoints"]').textContent()).toContain(`mesh ${mesh}`);
          // Pseudopotentials by element, each its file name.
          const shownElements = await table
            .locator('[data-testid="pseudos"] dd')
            .evaluateAll((dds) => dds.map((d) => [d.getAttribute('data-element'), d.textContent]));
          expect(shownElements).toEqual(
            pseudos
              .map((p) => [p.attributes!.element, p.attributes!.filename])
              .sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
          );
          // Nothing wider than the screen.
          expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
            viewport.width,
          );
          expect(await seriousViolations(page)).toEqual([]);
          await page.locator('#bt-inputs').evaluate((h) => h.scrollIntoView({ block: 'start' }));
          await screenshot(page, `process-inputs-${name}${source === 'archive' ? '' : `-${source}`}`);
          expect(watched.problems).toEqual([]);
        } finally {
          await page.context().close();
        }
      });
    }

    it('a failed process says its exit code and message once, beside its state in the summary', async () => {
      const processes = await firstOfType(
        'process.%|%',
        '&attributes=true&attributes_filter=process_state,exit_status,exit_message',
      );
      const failed = processes.find(
        (p) =>
          p.attributes?.process_state === 'finished' &&
          typeof p.attributes.exit_status === 'number' &&
          p.attributes.exit_status !== 0 &&
          typeof p.attributes.exit_message === 'string',
      );
      expect(failed).toBeDefined();
      const { exit_status: status, exit_message: message } = failed!.attributes!;
      const watched = await watchedPage(rich.browser, { viewport: PHONE });
      const { page } = watched;
      try {
        await page.goto(`${rich.served.base}/nodes/${failed!.uuid}`);
        const exit = page.locator('[data-testid="summary-exit"]');
        await exit.waitFor({ timeout: 20_000 });
        // The code, then the message on a line of its own.
        expect((await exit.textContent())?.trim()).toBe(`exit code ${status}${message}`);
        expect(await exit.locator('[data-field="exit-message"]').textContent()).toBe(message);
        expect(await page.locator('[data-testid="summary-state"]').getAttribute('class')).toContain(
          'tone-failed',
        );
        // Said once: the process's own view, further down, does not repeat the state and exit message.
        await page.locator('[data-view="process"] #bt-process').waitFor({ timeout: 20_000 });
        await page.locator('[data-view="process"] #bt-report').waitFor({ timeout: 20_000 });
        expect(await page.locator('[data-testid="process-state"]').count()).toBe(0);
        expect(await page.locator('[data-testid="exit-message"]').count()).toBe(0);
        expect(watched.problems).toEqual([]);
      } finally {
        await page.context().close();
      }
    });
  },
);
