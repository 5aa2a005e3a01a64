/**
 * A titled part of a page, folded or open, with an anchor. A folded part asks for nothing until it is first
 * opened (by its heading, or by a link to its anchor), so that a page's first view makes only its own requests.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { Boundary } from './Boundary.js';

const targeted = (id: string) => typeof window !== 'undefined' && window.location.hash === `#${id}`;

export function Section(props: {
  title: string;
  id: string;
  collapsed?: boolean;
  /** A short figure beside the title (a count), known before the part is opened. */
  note?: ComponentChildren;
  children: ComponentChildren;
}) {
  const [open, setOpen] = useState(!props.collapsed || targeted(props.id));
  const element = useRef<HTMLElement>(null);
  useEffect(() => {
    const onHash = () => {
      if (!targeted(props.id)) return;
      setOpen(true);
      element.current?.scrollIntoView({ block: 'start' });
    };
    if (targeted(props.id)) requestAnimationFrame(onHash);
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, [props.id]);
  return (
    <section class="part" id={props.id} aria-labelledby={`${props.id}-title`} ref={element}>
      <details open={open} onToggle={(event) => setOpen((event.currentTarget as HTMLDetailsElement).open)}>
        <summary>
          <h2 id={`${props.id}-title`}>{props.title}</h2>
          {props.note !== undefined && <span class="count"> {props.note}</span>}
        </summary>
        {open && (
          <div class="part-body">
            <Boundary what={`the ${props.title.toLowerCase()}`}>{props.children}</Boundary>
          </div>
        )}
      </details>
    </section>
  );
}
