/** A titled part of a page, folded or open, with an anchor. */
import type { ComponentChildren } from 'preact';
import { Boundary } from './Boundary.js';

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
        <div class="part-body">
          <Boundary what={`the ${props.title.toLowerCase()}`}>{props.children}</Boundary>
        </div>
      </details>
    </section>
  );
}
