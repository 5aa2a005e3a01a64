/** Paging controls of a list: first, previous, next, last; `total` undefined when only "more" is known. */
import { formatCount } from '../format.js';

interface Props {
  page: number;
  perpage: number;
  /** Rows in all pages; undefined when the source does not count them. */
  total?: number;
  /** Without a total: whether a next page exists. */
  hasMore?: boolean;
  onPage(page: number): void;
  label?: string;
}

export function Pager({ page, perpage, total, hasMore, onPage, label = 'Pages' }: Props) {
  const last = total === undefined ? undefined : Math.max(1, Math.ceil(total / perpage));
  const next = last === undefined ? hasMore === true : page < last;
  const first = total === 0 ? 0 : (page - 1) * perpage + 1;
  const upTo = total === undefined ? undefined : Math.min(page * perpage, total);
  return (
    <nav class="pager" aria-label={label}>
      <button type="button" disabled={page <= 1} onClick={() => onPage(1)} aria-label="First page">
        «
      </button>
      <button type="button" disabled={page <= 1} onClick={() => onPage(page - 1)} aria-label="Previous page">
        ‹
      </button>
      <span class="pager-where">
        {total === undefined
          ? `page ${formatCount(page)}`
          : `${formatCount(first)}–${formatCount(upTo ?? 0)} of ${formatCount(total)} · page ${formatCount(page)} of ${formatCount(last ?? 1)}`}
      </span>
      <button type="button" disabled={!next} onClick={() => onPage(page + 1)} aria-label="Next page">
        ›
      </button>
      {last !== undefined && (
        <button type="button" disabled={page >= last} onClick={() => onPage(last)} aria-label="Last page">
          »
        </button>
      )}
    </nav>
  );
}
