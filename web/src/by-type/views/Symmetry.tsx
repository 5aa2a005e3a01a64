/**
 * A structure's space group, found in the browser by moyo (the symmetry finder of the spglib authors, as
 * WebAssembly): loaded only by the structure views, at the tolerance the reader picks.
 */
import { useEffect, useState } from 'preact/hooks';
import type { Crystal } from '../logic/structure.js';
import { useUrlParam } from '../../url-state.js';
import { kindsSplitElements, symmetryCell } from '../logic/symmetry.js';

/** Distance tolerances offered, in Å; 1e-3 Å is a common default for relaxed structures. */
const TOLERANCES = [1e-5, 1e-4, 1e-3, 1e-2, 0.1];
const DEFAULT_TOLERANCE = 1e-3;

interface Found {
  number: number;
  symbol: string;
  pearson: string;
  operations: number;
}

let moyo: Promise<typeof import('@spglib/moyo-wasm')> | undefined;
async function loadMoyo() {
  moyo ??= (async () => {
    const [module, wasm] = await Promise.all([
      import('@spglib/moyo-wasm'),
      import('@spglib/moyo-wasm/moyo_wasm_bg.wasm?url'),
    ]);
    await module.default({ module_or_path: wasm.default });
    return module;
  })();
  return moyo;
}

export function Symmetry({ crystal }: { crystal: Crystal }) {
  // The tolerance is in the address (`?symprec=0.01`), one of those offered.
  const [kept, keep] = useUrlParam('symprec');
  const tolerance = TOLERANCES.find((t) => String(t) === kept) ?? DEFAULT_TOLERANCE;
  const setTolerance = (t: number) => keep(t === DEFAULT_TOLERANCE ? undefined : String(t));
  const [state, setState] = useState<{ found?: Found; elements?: Found; error?: string }>({});
  useEffect(() => {
    let live = true;
    setState({});
    loadMoyo()
      .then((m) => {
        const analyze = (by: 'kind' | 'element'): Found => {
          const data = m.analyze_cell(JSON.stringify(symmetryCell(crystal, by)), tolerance, 'Standard');
          return {
            number: data.number,
            symbol: data.hm_symbol,
            pearson: data.pearson_symbol,
            operations: data.operations.length,
          };
        };
        const found = analyze('kind');
        // Kinds that split an element (magnetic or labelled sites) may lower the symmetry: the elements' group is
        // shown beside, as a file without kinds (a CIF) gives it.
        const elements = kindsSplitElements(crystal) ? analyze('element') : undefined;
        if (live) setState({ found, elements: elements?.number === found.number ? undefined : elements });
      })
      .catch((error: unknown) => {
        if (live) setState({ error: error instanceof Error ? error.message : String(error) });
      });
    return () => {
      live = false;
    };
  }, [crystal, tolerance]);
  return (
    <>
      <dt>Space group</dt>
      <dd data-testid="space-group">
        {state.found ? (
          <>
            <span data-testid="space-group-symbol" title={state.found.symbol}>
              {state.found.symbol.replace(/\s+/g, '')}
            </span>{' '}
            (<span data-testid="space-group-number">{state.found.number}</span>) · Pearson{' '}
            {state.found.pearson} · {state.found.operations} operations
          </>
        ) : state.error ? (
          <span class="bt-muted">not found ({state.error})</span>
        ) : (
          '…'
        )}
      </dd>
      {state.elements && (
        <>
          <dt>Elements alone</dt>
          <dd data-testid="space-group-elements" title="the kinds ignored: as a CIF download gives it">
            {state.elements.symbol.replace(/\s+/g, '')} (
            <span data-testid="space-group-elements-number">{state.elements.number}</span>)
          </dd>
        </>
      )}
      <dt>
        <label for="symprec">Tolerance</label>
      </dt>
      <dd>
        <select
          id="symprec"
          value={String(tolerance)}
          onChange={(event) => setTolerance(Number((event.currentTarget as HTMLSelectElement).value))}
        >
          {TOLERANCES.map((t) => (
            <option key={t} value={String(t)}>
              {t} Å
            </option>
          ))}
        </select>
      </dd>
    </>
  );
}
