/** A JSON value as a tree: objects and arrays fold, long lists show their first items until asked for more. */
import { useState } from 'preact/hooks';

const SHOWN = 100;

export function JsonTree({ value, label, open = true }: { value: unknown; label?: string; open?: boolean }) {
  if (value !== null && typeof value === 'object') {
    const entries = Array.isArray(value)
      ? value.map((v, i) => [String(i), v] as const)
      : Object.entries(value as Record<string, unknown>);
    if (entries.length === 0) {
      return (
        <div class="json-leaf">
          {label !== undefined && <span class="json-key">{label}: </span>}
          <span class="json-empty">{Array.isArray(value) ? '[]' : '{}'}</span>
        </div>
      );
    }
    return <JsonBranch entries={entries} label={label} isArray={Array.isArray(value)} open={open} />;
  }
  return (
    <div class="json-leaf">
      {label !== undefined && <span class="json-key">{label}: </span>}
      <JsonScalar value={value} />
    </div>
  );
}

function JsonBranch(props: {
  entries: (readonly [string, unknown])[];
  label?: string;
  isArray: boolean;
  open: boolean;
}) {
  const { entries, label, isArray, open } = props;
  const [limit, setLimit] = useState(SHOWN);
  const summary = isArray ? `[${entries.length}]` : `{${entries.length}}`;
  return (
    <details class="json-branch" open={open}>
      <summary>
        {label !== undefined && <span class="json-key">{label}: </span>}
        <span class="json-count">{summary}</span>
      </summary>
      <div class="json-children">
        {entries.slice(0, limit).map(([key, child]) => (
          <JsonTree key={key} value={child} label={key} open={entries.length <= 10 && !isBig(child)} />
        ))}
        {entries.length > limit && (
          <button type="button" class="small" onClick={() => setLimit(limit + SHOWN * 10)}>
            Show more ({entries.length - limit} hidden)
          </button>
        )}
      </div>
    </details>
  );
}

function isBig(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false;
  return (Array.isArray(value) ? value.length : Object.keys(value).length) > 10;
}

function JsonScalar({ value }: { value: unknown }) {
  if (typeof value === 'string') return <span class="json-string">"{value}"</span>;
  if (typeof value === 'number') return <span class="json-number">{String(value)}</span>;
  if (typeof value === 'boolean' || value === null) return <span class="json-literal">{String(value)}</span>;
  return <span>{String(value)}</span>;
}
