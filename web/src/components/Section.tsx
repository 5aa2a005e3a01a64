/** A titled part of a page, folded or open, with an anchor. */
import type { ComponentChildren } from 'preact';

export function Section(props: {
  title: string;
  id: string;
  collapsed?: boolean;
  children: ComponentChildren;
}) {
  return (
    <section class="part" id={props.id} aria-labelledby={`${props.id}-title`}>
      <details open={!props.collapsed}>
        <summary>
          <h2 id={`${props.id}-title`}>{props.title}</h2>
        </summary>
        <div class="part-body">{props.children}</div>
      </details>
    </section>
  );
}
