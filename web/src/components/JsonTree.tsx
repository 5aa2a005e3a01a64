/**
 * A JSON value as a tree: objects and arrays fold, long lists show their first items until asked for more. Lists
 * of plain values are written on one line (a cell's row, a mesh) and lists of such rows one row a line (a 3×3
 * cell takes 3 lines), so that a page of attributes stays short.
 */
import { useState } from 'preact/hooks';

const SHOWN = 100;
/** Values of a list written inline before the rest is folded behind a button. */
const INLINE = 12;
/** Rows of a matrix written one a line before it is shown as a folding list instead. */
const MATRIX_ROWS = 12;

const isScalar = (v: unknown) => v === null || typeof v !== 'object';
const isScalarList = (v: unknown): v is unknown[] =>
  Array.isArray(v) &&
  v.length > 0 &&
  v.every(isScalar) &&
  v.every((x) => typeof x !== 'string' || x.length <= 40);
const isMatrix = (v: unknown): v is unknown[][] =>
  Array.isArray(v) &&
  v.length > 0 &&
  v.length <= MATRIX_ROWS &&
  v.every((row) => isScalarList(row) && row.length <= INLINE);

export function JsonTree({ value, label, open = true }: { value: unknown; label?: string; open?: boolean }) {
  if (value !== null && typeof value === 'object') {
    const entries = Array.isArray(value)
      ? value.map((v, i) => [String(i), v] as const)
      : Object.entries(value as Record<string, unknown>);
    if (isMatrix(value)) return <JsonMatrix rows={value} label={label} />;
    if (isScalarList(value)) return <JsonInline values={value} label={label} />;
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

/** A list of plain values on one line; past INLINE values the rest waits behind a button. */
function JsonInline({ values, label }: { values: unknown[]; label?: string }) {
  const [all, setAll] = useState(false);
  const shown = all ? values : values.slice(0, INLINE);
  return (
    <div class="json-leaf json-inline">
      {label !== undefined && <span class="json-key">{label}: </span>}[
      {shown.map((v, i) => (
        <span key={i}>
          {i > 0 && ', '}
          <JsonScalar value={v} />
        </span>
      ))}
      {shown.length < values.length && (
        <>
          , …{' '}
          <button type="button" class="small" onClick={() => setAll(true)}>
            {values.length - shown.length} more
          </button>
        </>
      )}
      ]
    </div>
  );
}

/** Rows of plain values, one row a line beside the key, columns aligned. */
function JsonMatrix({ rows, label }: { rows: unknown[][]; label?: string }) {
  return (
    <div class="json-leaf json-matrix">
      {label !== undefined && <span class="json-key">{label}: </span>}
      <span class="json-rows">
        {rows.map((row, r) => (
          <span class="json-row" key={r}>
            [
            {row.map((v, i) => (
              <span key={i}>
                {i > 0 && ', '}
                <JsonScalar value={v} />
              </span>
            ))}
            ]
          </span>
        ))}
      </span>
    </div>
  );
}
