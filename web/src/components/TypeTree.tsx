/** The types of the nodes served, as a tree with counts (`/nodes/full_types_count/`); each type lists its nodes. */
import { useState } from 'preact/hooks';
import type { TypeCount } from '../types.js';
import { formatCount } from '../format.js';
import { Link } from './Link.js';

export function TypeTree({ root }: { root: TypeCount }) {
  // The root is "node", every node: its subspaces are the tree people read.
  return (
    <ul class="type-tree" aria-label="Node types">
      {root.subspaces.map((space) => (
        <TypeItem key={space.full_type + space.label} space={space} depth={0} />
      ))}
    </ul>
  );
}

function TypeItem({ space, depth }: { space: TypeCount; depth: number }) {
  // A button beside the link, not a <summary> around it: a link inside a summary is two controls in one.
  const [open, setOpen] = useState(depth < 2);
  const link = (
    <>
      <Link path="/nodes" params={{ type: space.full_type }}>
        {space.label}
      </Link>{' '}
      <span class="count">{formatCount(space.counter)}</span>
    </>
  );
  if (space.subspaces.length === 0) return <li class="leaf">{link}</li>;
  return (
    <li>
      <button
        type="button"
        class="toggle"
        aria-expanded={open}
        aria-label={`${open ? 'Fold' : 'Unfold'} the types under ${space.label}`}
        onClick={() => setOpen(!open)}
      >
        <span aria-hidden="true">{open ? '▾' : '▸'}</span>
      </button>
      {link}
      {open && (
        <ul>
          {space.subspaces.map((child) => (
            <TypeItem key={child.full_type + child.label} space={child} depth={depth + 1} />
          ))}
        </ul>
      )}
    </li>
  );
}
