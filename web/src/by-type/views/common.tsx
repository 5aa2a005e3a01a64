/**
 * Pieces the by-type views share: a titled part (an h3: the node page puts each view under its own h2), number
 * cells, and the views' styles.
 */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { formatNumber } from '../logic/arrays.js';
import './by-type.css';

export function Section({
  title,
  children,
  id,
}: {
  title: string;
  children: ComponentChildren;
  id?: string;
}) {
  return (
    <section class="bt-section" aria-labelledby={id}>
      <h3 id={id}>{title}</h3>
      {children}
    </section>
  );
}

export const Num = ({ value, digits }: { value: unknown; digits?: number }) => (
  <td class="bt-num">
    {typeof value === 'number' && digits !== undefined ? value.toFixed(digits) : formatNumber(value)}
  </td>
);

/** A column heading: a string for text, `{ num }` for numbers (right-aligned like their `Num` cells). */
export type Column = string | { num: string };

/** The headings of fractional coordinates, in the sites tables of structures and CIF files. */
export const FRACTIONAL: Column[] = [{ num: 'a (frac.)' }, { num: 'b (frac.)' }, { num: 'c (frac.)' }];

/**
 * The views' tables of cells, vectors, sites and points: one heading row, then the rows given. `false` leaves a
 * column out (one the data lacks); `scroll` lets a wide table scroll instead of widening the page.
 */
export function Table({
  columns,
  testid,
  caption,
  scroll,
  children,
}: {
  columns: (Column | false)[];
  testid: string;
  caption?: string;
  scroll?: boolean;
  children: ComponentChildren;
}) {
  const table = (
    <table class="bt-table" data-testid={testid}>
      {caption !== undefined && <caption class="bt-muted">{caption}</caption>}
      <thead>
        <tr>
          {columns.map((c, i) =>
            c === false ? null : typeof c === 'string' ? (
              <th key={i} scope="col">
                {c}
              </th>
            ) : (
              <th key={i} scope="col" class="bt-num">
                {c.num}
              </th>
            ),
          )}
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
  );
  return (
    <div class={scroll ? 'bt-scroll' : 'bt-scroll-x'} tabIndex={0}>
      {table}
    </div>
  );
}

/** Shows the first `limit` items of a long list, with a button for the rest (never a page of 10^5 rows). */
export function useShown<T>(items: T[], limit = 200): { shown: T[]; more: ComponentChildren } {
  const [all, setAll] = useState(false);
  if (all || items.length <= limit) return { shown: items, more: null };
  return {
    shown: items.slice(0, limit),
    more: (
      <p>
        Showing {limit} of {items.length}.{' '}
        <button type="button" class="bt-button" onClick={() => setAll(true)}>
          Show all {items.length}
        </button>
      </p>
    ),
  };
}

/**
 * What WebGL offers here: nothing (locked-down machines), software rendering (SwiftShader, llvmpipe: virtual
 * machines, remote desktops, headless browsers), or a GPU.
 */
export function webGL(): 'none' | 'software' | 'gpu' {
  try {
    const canvas = document.createElement('canvas');
    const gl = canvas.getContext('webgl2') ?? canvas.getContext('webgl');
    if (!gl) return 'none';
    const info = gl.getExtension('WEBGL_debug_renderer_info');
    const renderer = String(gl.getParameter(info ? info.UNMASKED_RENDERER_WEBGL : gl.RENDERER));
    gl.getExtension('WEBGL_lose_context')?.loseContext();
    return /swiftshader|llvmpipe|softpipe|software/i.test(renderer) ? 'software' : 'gpu';
  } catch {
    return 'none';
  }
}

export const prefersDark = (): boolean =>
  typeof matchMedia === 'function' && matchMedia('(prefers-color-scheme: dark)').matches;
