/** Dict, List, Int, Float, Str and Bool: the value itself, big and clear. */
import { Await } from '../../components/Await.js';
import { JsonTree } from '../../components/JsonTree.js';
import type { TypeViewProps } from '../index.js';
import { useAttributes } from './contents.js';
import { scientific } from '../logic/arrays.js';
import { Section } from './common.js';

export default function ValueView({ node, api }: TypeViewProps) {
  const loaded = useAttributes({ node, api });
  const kind = node.node_type.split('.').filter(Boolean).pop() ?? 'Value';
  return (
    <div class="bt-view" data-view="value">
      <Await loaded={loaded} what="the value">
        {(attributes) => <Value kind={kind} attributes={attributes} />}
      </Await>
    </div>
  );
}

function Value({ kind, attributes }: { kind: string; attributes: Record<string, unknown> }) {
  if (kind === 'Dict') {
    const keys = Object.keys(attributes);
    return (
      <Section title={`Dictionary (${keys.length} ${keys.length === 1 ? 'key' : 'keys'})`} id="bt-value">
        <div data-testid="value">
          <JsonTree value={attributes} />
        </div>
      </Section>
    );
  }
  if (kind === 'List') {
    const list = Array.isArray(attributes.list) ? attributes.list : [];
    const scalars = list.every((v) => v === null || typeof v !== 'object');
    return (
      <Section title={`List (${list.length} ${list.length === 1 ? 'item' : 'items'})`} id="bt-value">
        {scalars && list.length <= 50 ? (
          <p class="bt-big" data-testid="value">
            [{list.map((v) => JSON.stringify(v)).join(', ')}]
          </p>
        ) : (
          <div data-testid="value">
            <JsonTree value={list} />
          </div>
        )}
      </Section>
    );
  }
  const value = attributes.value;
  const text = typeof value === 'string' ? value : value === undefined ? '(no value)' : JSON.stringify(value);
  return (
    <Section title={kind} id="bt-value">
      <p
        class={`bt-big${typeof value === 'boolean' ? (value ? ' bt-tone-ok' : ' bt-tone-failed') : ''}`}
        data-testid="value"
      >
        {typeof value === 'string' ? <q>{text}</q> : <Scalar value={value} text={text} />}
      </p>
      {typeof value === 'number' && scientific(value) && <p class="bt-muted">Stored as {String(value)}</p>}
    </Section>
  );
}

/** A number in plain digits, or as mantissa × 10^exponent when its plain form would be hard to read. */
function Scalar({ value, text }: { value: unknown; text: string }) {
  const sci = typeof value === 'number' ? scientific(value) : undefined;
  if (!sci) return <>{text}</>;
  return (
    <>
      {sci.mantissa} × 10<sup>{sci.exponent}</sup>
    </>
  );
}
