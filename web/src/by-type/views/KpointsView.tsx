/** KpointsData: the mesh and its offset, or the explicit list of points with weights and labels. */
import { Await } from '../../components/Await.js';
import { useLoad } from '../../hooks.js';
import type { TypeViewProps } from '../index.js';
import { kpointLabels, kpointsMesh, meshText } from '../logic/kpoints.js';
import { Num, Section, Table, useShown } from './common.js';
import { downloadJson } from './download.js';
import { fetchAttributes, fetchDerived } from './contents.js';
import { BrillouinZone } from './BrillouinZone.js';

interface Loaded {
  attributes: Record<string, unknown>;
  points: number[][];
  weights?: number[];
  /** The Brillouin zone's faces and the points in Cartesian coordinates, when the set has a cell. */
  zone?: { faces: Vec3[][]; absolute: Vec3[] };
}

type Vec3 = [number, number, number];

export default function KpointsView({ node, api }: TypeViewProps) {
  const loaded = useLoad(
    async (signal): Promise<Loaded> => {
      const [attrs, derived] = await Promise.all([
        fetchAttributes(api, node.uuid, signal),
        fetchDerived<{
          explicit_kpoints_rel?: number[][];
          explicit_kpoints_abs?: Vec3[];
          faces_data?: { faces?: Vec3[][] };
        }>(api, node.uuid, signal),
      ]);
      const points = derived.explicit_kpoints_rel ?? [];
      // Weights are stored only with an explicit list; the json download carries them.
      let weights: number[] | undefined;
      if ('array|weights' in attrs) {
        const json = await downloadJson<{ weights?: number[] }>(api, node.uuid, signal);
        weights = Array.isArray(json.weights) ? json.weights : undefined;
      }
      const faces = derived.faces_data?.faces;
      const zone =
        Array.isArray(faces) && faces.length > 0
          ? { faces, absolute: derived.explicit_kpoints_abs ?? [] }
          : undefined;
      return { attributes: attrs, points, weights, zone };
    },
    [node.uuid, api],
  );
  return (
    <div class="bt-view" data-view="kpoints">
      <Await loaded={loaded} what="the k-points">
        {(data) => <Kpoints {...data} />}
      </Await>
    </div>
  );
}

function Kpoints({ attributes, points, weights, zone }: Loaded) {
  const mesh = kpointsMesh(attributes);
  const labels = kpointLabels(attributes, points.length);
  const { shown, more } = useShown(points);
  return (
    <>
      <Section title="K-points" id="bt-kpoints">
        <dl class="bt-facts">
          <dt>Kind</dt>
          <dd>{mesh ? 'Mesh' : 'Explicit list'}</dd>
          {mesh && (
            <>
              <dt>Mesh</dt>
              <dd data-testid="mesh">{meshText(mesh)}</dd>
            </>
          )}
          <dt>Points</dt>
          <dd>{mesh ? mesh.count : points.length}</dd>
          {labels.size > 0 && (
            <>
              <dt>Labels</dt>
              <dd>{[...labels.entries()].map(([i, l]) => `${l} (${i})`).join(', ')}</dd>
            </>
          )}
        </dl>
        {zone && (
          <BrillouinZone
            faces={zone.faces}
            points={zone.absolute}
            labels={[...labels.entries()].map(([index, label]) => ({ index, label }))}
          />
        )}
      </Section>
      {points.length > 0 && (
        <Section title={mesh ? 'Points of the mesh (fractional)' : 'Points (fractional)'} id="bt-kpoint-list">
          <Table
            testid="kpoints"
            scroll
            columns={[
              '#',
              { num: 'k₁' },
              { num: 'k₂' },
              { num: 'k₃' },
              weights !== undefined && { num: 'Weight' },
              labels.size > 0 && 'Label',
            ]}
          >
            {shown.map((p, i) => (
              <tr key={i}>
                <td>{i}</td>
                {p.map((v, k) => (
                  <Num key={k} value={v} digits={6} />
                ))}
                {weights && <Num value={weights[i]} />}
                {labels.size > 0 && <td>{labels.get(i) ?? ''}</td>}
              </tr>
            ))}
          </Table>
          {more}
        </Section>
      )}
    </>
  );
}
