/** TrajectoryData: its steps in 3D (a slider moves through them), then its arrays as ArrayData shows them. */
import { useMemo, useState } from 'preact/hooks';
import { Await } from '../../components/Await.js';
import type { TypeViewProps } from '../index.js';
import { trajectoryFrame } from '../logic/arrays.js';
import { Section } from './common.js';
import { Crystal3D } from './Crystal3D.js';
import { Arrays, useArrays, type Loaded } from './ArrayView.js';

export default function TrajectoryView(props: TypeViewProps) {
  const { node, api } = props;
  const loaded = useArrays(props);
  return (
    <div class="bt-view" data-view="trajectory">
      <Await loaded={loaded} what="the trajectory">
        {(data) => (
          <>
            <Steps {...data} label={node.label || node.uuid} />
            <Arrays
              {...data}
              downloadUrl={api.url(`/nodes/${node.uuid}/download/`, 'download_format=json')}
            />
          </>
        )}
      </Await>
    </div>
  );
}

function Steps({ attributes, values, label }: Loaded & { label: string }) {
  const symbols = useMemo(
    () => (Array.isArray(attributes.symbols) ? attributes.symbols.map(String) : []),
    [attributes],
  );
  const count = Array.isArray(values?.positions) ? values.positions.length : 0;
  const [step, setStep] = useState(0);
  const frame = useMemo(
    () => (values ? trajectoryFrame(values, symbols, Math.min(step, count - 1)) : undefined),
    [values, symbols, step, count],
  );
  // Too large to fetch, or no positions: the arrays below say what there is.
  if (!frame || count === 0) return null;
  const stepNumbers = Array.isArray(values?.steps) ? (values.steps as unknown[]) : undefined;
  const times = Array.isArray(values?.times) ? (values.times as unknown[]) : undefined;
  return (
    <Section title="Steps in 3D" id="bt-trajectory-3d">
      <p>
        <label>
          Step {step + 1} of {count}
          {stepNumbers?.[step] !== undefined && ` (step ${String(stepNumbers[step])}`}
          {times?.[step] !== undefined && `, time ${String(times[step])}`}
          {stepNumbers?.[step] !== undefined && ')'}{' '}
          <input
            type="range"
            min={0}
            max={count - 1}
            value={step}
            onInput={(event) => setStep(Number((event.target as HTMLInputElement).value))}
            data-testid="trajectory-step"
          />
        </label>
      </p>
      <Crystal3D atoms={frame.atoms} cell={frame.cell} label={`${label}, step ${step + 1}`} />
    </Section>
  );
}
