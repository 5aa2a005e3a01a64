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

/** Whether WebGL can draw here (headless browsers and locked-down machines may not offer it). */
export function hasWebGL(): boolean {
  try {
    const canvas = document.createElement('canvas');
    return Boolean(canvas.getContext('webgl2') ?? canvas.getContext('webgl'));
  } catch {
    return false;
  }
}

export const prefersDark = (): boolean =>
  typeof matchMedia === 'function' && matchMedia('(prefers-color-scheme: dark)').matches;
