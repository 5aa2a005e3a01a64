/** CifData: the unit cell in 3D (the file's sites and their symmetry images), formula, cell and sites. */
import { useMemo } from 'preact/hooks';
import { Await } from '../../components/Await.js';
import { useLoad } from '../../hooks.js';
import type { TypeViewProps } from '../index.js';
import { cellParameters } from '../logic/cell.js';
import { cifStructure, type CifStructure } from '../logic/cif.js';
import { hillFormula } from '../logic/structure.js';
import { formulaOf } from '../../chemistry.js';
import { Formula } from '../../components/Formula.js';
import { FRACTIONAL, Num, Section, Table, useShown } from './common.js';
import { Crystal3D } from './Crystal3D.js';
import { downloadText } from './download.js';
import { CellTable } from './StructureView.js';
import { fetchAttributes } from './contents.js';
import { Symmetry } from './Symmetry.js';
import type { Crystal } from '../logic/structure.js';

/** The unit cell of a CIF as the symmetry finder takes a structure, or undefined without sites. */
function crystalOfCif(cif: CifStructure): Crystal | undefined {
  if (cif.unitCell.length === 0) return undefined;
  return {
    cell: cif.cell,
    pbc: [true, true, true],
    sites: cif.unitCell.map((s) => ({
      kind: s.symbol,
      symbols: [s.symbol],
      weights: [s.occupancy],
      position: s.position,
      fractional: s.fractional,
    })),
  };
}

export default function CifView({ node, api }: TypeViewProps) {
  const loaded = useLoad(
    async (signal) => {
      const [attributes, text] = await Promise.all([
        fetchAttributes(api, node.uuid, signal),
        downloadText(api, node.uuid, 'cif', signal),
      ]);
      return { attributes, cif: cifStructure(text) };
    },
    [node.uuid, api],
  );
  return (
    <div class="bt-view" data-view="cif">
      <Await loaded={loaded} what="the CIF file">
        {({ attributes, cif }) => <Cif attributes={attributes} cif={cif} label={node.label || node.uuid} />}
      </Await>
    </div>
  );
}

function Cif({
  attributes,
  cif,
  label,
}: {
  attributes: Record<string, unknown>;
  cif: CifStructure;
  label: string;
}) {
  const atoms = useMemo(() => cif.unitCell.map((s) => ({ symbol: s.symbol, position: s.position })), [cif]);
  const declared = formulaOf({ formulae: attributes.formulae });
  const groups = Array.isArray(attributes.spacegroup_numbers)
    ? attributes.spacegroup_numbers.join(', ')
    : undefined;
  const { shown, more } = useShown(cif.listed);
  // The space group is found from the unit cell's sites, as for a structure; the file's own is said beside it.
  const crystal = useMemo(() => crystalOfCif(cif), [cif]);
  return (
    <>
      <Section title="Crystal" id="bt-cif">
        <dl class="bt-facts">
          {/* The unit cell's content, as every list shows a CIF's formula (and a structure's). */}
          <dt>Formula</dt>
          <dd>
            <span data-testid="formula">
              <Formula formula={hillFormula(cif.unitCell.map((s) => s.symbol))} />
            </span>{' '}
            ({cif.unitCell.length} sites)
          </dd>
          {declared !== undefined && (
            <>
              <dt>Formula in the file</dt>
              <dd data-testid="formula-declared">{declared}</dd>
            </>
          )}
          {crystal && <Symmetry crystal={crystal} />}
          <dt>Declared in the file</dt>
          <dd data-testid="space-group-declared" title="the space group the file states, not checked">
            {[cif.spaceGroup, groups && `No. ${groups}`].filter(Boolean).join(', ') || '—'}
          </dd>
          <dt>Data block</dt>
          <dd>{cif.block}</dd>
          {typeof attributes.filename === 'string' && (
            <>
              <dt>File</dt>
              <dd>{attributes.filename}</dd>
            </>
          )}
        </dl>
        <Crystal3D atoms={atoms} cell={cif.cell} label={label} />
      </Section>
      <CellTable cell={cif.cell} params={cellParameters(cif.cell)} />
      <Section title="Atom sites (as listed in the file)" id="bt-cif-sites">
        <Table testid="sites" scroll columns={['Label', 'Element', { num: 'Occupancy' }, ...FRACTIONAL]}>
          {shown.map((s, i) => (
            <tr key={i}>
              <td>{s.label}</td>
              <td>{s.symbol}</td>
              <Num value={s.occupancy} />
              {s.fractional.map((v, k) => (
                <Num key={k} value={v} digits={5} />
              ))}
            </tr>
          ))}
        </Table>
        {more}
      </Section>
    </>
  );
}
