/**
 * A list page's table (users, groups, computers, a node's links): scrolls sideways on narrow screens, is named for
 * screen readers by a hidden caption, and has one row of plain column headings. The rows are the caller's.
 */
import type { ComponentChildren } from 'preact';

interface Props {
  /** What the table lists, read out by screen readers ("Users"). */
  caption: string;
  columns: string[];
  /** The table's own class, for styles of one kind of table (`links`). */
  class?: string;
  children: ComponentChildren;
}

export function ListTable({ caption, columns, class: className, children }: Props) {
  return (
    <div class="table-wrap" tabIndex={0}>
      <table class={className}>
        <caption class="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c} scope="col">
                {c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
