/** StructureData: the 3D view with its cell, the formula, the cell's lengths and angles, and the sites. */
import { useMemo } from 'preact/hooks';
import { useUrlParam } from '../../url-state.js';
import { Await } from '../../components/Await.js';
import { useLoad } from '../../hooks.js';
import type { TypeViewProps } from '../index.js';
import { cellParameters } from '../logic/cell.js';
import { crystalFromAttributes, mainSymbol, siteComposition, type Crystal } from '../logic/structure.js';
import { FRACTIONAL, Num, Section, Table, useShown } from './common.js';
import { Crystal3D } from './Crystal3D.js';
import { poscar } from '../logic/poscar.js';
import { fetchAttributes, fetchDerived } from './contents.js';
import { Symmetry } from './Symmetry.js';
import { Formula } from '../../components/Formula.js';
import { densityOf, supercell, type Density } from '../logic/symmetry.js';

interface Derived {
  formula?: string;
  dimensionality?: { dim?: number; label?: string; value?: number };
}

export default function StructureView({ node, api }: TypeViewProps) {
  const loaded = useLoad(
    async (signal) => {
      const [attributes, derived] = await Promise.all([
        fetchAttributes(api, node.uuid, signal),
        fetchDerived<Derived>(api, node.uuid, signal),
      ]);
      const crystal = crystalFromAttributes(attributes);
      return { crystal, derived, density: densityOf(attributes, crystal.cell, crystal.pbc) };
    },
    [node.uuid, api],
  );
  return (
    <div class="bt-view" data-view="structure">
      <Await loaded={loaded} what="the structure">
        {({ crystal, derived, density }) => (
          <Structure crystal={crystal} derived={derived} density={density} label={node.label || node.uuid} />
        )}
      </Await>
    </div>
  );
}

/** The most atoms a supercell may have in the 3D view (beyond, the repeat buttons stop). */
const SUPERCELL_ATOMS = 4000;

/** `2x2x1` from the address, each 1 to 5 and the whole within SUPERCELL_ATOMS; anything else is 1×1×1. */
function parseRepeat(text: string | undefined, sites: number): [number, number, number] {
  const parts = (text ?? '').split('x').map(Number);
  if (parts.length !== 3 || !parts.every((n) => Number.isInteger(n) && n >= 1 && n <= 5)) return [1, 1, 1];
  const [a, b, c] = parts as [number, number, number];
  return sites * a * b * c > SUPERCELL_ATOMS ? [1, 1, 1] : [a, b, c];
}

function Structure({
  crystal,
  derived,
  density,
  label,
}: {
  crystal: Crystal;
  derived: Derived;
  density?: Density;
  label: string;
}) {
  // The supercell is in the address (`?supercell=2x2x1`): a reload or a shared link draws the same.
  const [kept, keep] = useUrlParam('supercell');
  const repeat = useMemo(() => parseRepeat(kept, crystal.sites.length), [kept, crystal.sites.length]);
  const setRepeat = (next: [number, number, number]) =>
    keep(next.every((n) => n === 1) ? undefined : next.join('x'));
  const periodic = crystal.pbc.some(Boolean);
  const drawn = useMemo(() => {
    const atoms = crystal.sites.map((s) => ({ symbol: mainSymbol(s), position: s.position }));
    return periodic ? supercell(atoms, crystal.cell, repeat) : { atoms, cell: crystal.cell };
  }, [crystal, repeat, periodic]);
  // The structure itself (not the supercell drawn), as VASP reads it.
  const structurePoscar = useMemo(
    () =>
      poscar(
        label,
        crystal.cell,
        crystal.sites.map((site) => ({ symbol: mainSymbol(site), position: site.position })),
      ),
    [crystal, label],
  );
  const p = cellParameters(crystal.cell);
  const dim = derived.dimensionality;
  const { shown, more } = useShown(crystal.sites);
  return (
    <>
      <Section title="Structure" id="bt-structure">
        <dl class="bt-facts">
          <dt>Formula</dt>
          <dd data-testid="formula">{derived.formula ? <Formula formula={derived.formula} /> : '—'}</dd>
          <dt>Sites</dt>
          <dd>{crystal.sites.length}</dd>
          {density !== undefined && (
            <>
              <dt>{density.unit === 'mg/m²' ? 'Areal density' : 'Density'}</dt>
              <dd
                data-testid="density"
                title={density.unit === 'mg/m²' ? 'mass per area of the periodic plane' : undefined}
              >
                {density.value.toFixed(4)} {density.unit}
              </dd>
            </>
          )}
          {periodic && <Symmetry crystal={crystal} />}
          <dt>Periodic</dt>
          <dd>{crystal.pbc.map((b, i) => `${'abc'[i]}: ${b ? 'yes' : 'no'}`).join(', ')}</dd>
          {dim?.label && (
            <>
              <dt>Dimensionality</dt>
              <dd>
                {dim.dim}D, {dim.label} {typeof dim.value === 'number' ? dim.value.toFixed(4) : ''}{' '}
                {dim.dim === 3 ? 'Å³' : dim.dim === 2 ? 'Å²' : dim.dim === 1 ? 'Å' : ''}
              </dd>
            </>
          )}
        </dl>
        {/* A molecule (no periodic direction) is drawn without the box it sits in. */}
        {periodic && (
          <div class="bt-supercell" role="group" aria-label="Supercell">
            <span class="bt-muted">Supercell</span>
            {[0, 1, 2].map((axis) => (
              <label key={axis}>
                {'abc'[axis]}{' '}
                <select
                  value={String(repeat[axis])}
                  onChange={(event) => {
                    const next = [...repeat] as [number, number, number];
                    next[axis] = Number((event.currentTarget as HTMLSelectElement).value);
                    setRepeat(next);
                  }}
                >
                  {[1, 2, 3, 4, 5].map((n) => (
                    <option
                      key={n}
                      value={String(n)}
                      disabled={
                        (crystal.sites.length * n * repeat[0] * repeat[1] * repeat[2]) / repeat[axis]! >
                        SUPERCELL_ATOMS
                      }
                    >
                      {n}
                    </option>
                  ))}
                </select>
              </label>
            ))}
          </div>
        )}
        <Crystal3D
          atoms={drawn.atoms}
          cell={periodic ? drawn.cell : undefined}
          label={label}
          poscar={structurePoscar}
        />
      </Section>
      <CellTable cell={crystal.cell} params={p} />
      <Section title="Sites" id="bt-sites">
        <Table
          testid="sites"
          scroll
          columns={[
            '#',
            'Kind',
            'Element',
            { num: 'x (Å)' },
            { num: 'y (Å)' },
            { num: 'z (Å)' },
            ...FRACTIONAL,
          ]}
        >
          {shown.map((s, i) => (
            <tr key={i}>
              <td>{i + 1}</td>
              <td>{s.kind}</td>
              <td>{siteComposition(s)}</td>
              {s.position.map((v, k) => (
                <Num key={k} value={v} digits={5} />
              ))}
              {(s.fractional ?? [undefined, undefined, undefined]).map((v, k) => (
                <Num key={`f${k}`} value={v} digits={5} />
              ))}
            </tr>
          ))}
        </Table>
        {more}
      </Section>
    </>
  );
}

export function CellTable({
  cell,
  params: p,
}: {
  cell: Crystal['cell'];
  params: ReturnType<typeof cellParameters>;
}) {
  return (
    <Section title="Cell" id="bt-cell">
      <Table
        testid="cell-parameters"
        caption={`Lengths in Å, angles in degrees, volume ${p.volume.toFixed(4)} Å³`}
        columns={['a', 'b', 'c', 'α', 'β', 'γ'].map((num) => ({ num }))}
      >
        <tr>
          {[p.a, p.b, p.c].map((v, i) => (
            <Num key={i} value={v} digits={5} />
          ))}
          {[p.alpha, p.beta, p.gamma].map((v, i) => (
            <Num key={`g${i}`} value={v} digits={3} />
          ))}
        </tr>
      </Table>
      <Table
        testid="cell-vectors"
        caption="Lattice vectors (Å)"
        columns={['vector', { num: 'x' }, { num: 'y' }, { num: 'z' }]}
      >
        {cell.map((v, i) => (
          <tr key={i}>
            <th scope="row">{'abc'[i]}</th>
            {v.map((x, k) => (
              <Num key={k} value={x} digits={5} />
            ))}
          </tr>
        ))}
      </Table>
    </Section>
  );
}
