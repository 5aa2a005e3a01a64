/** An in-app link: a real `<a href>` (open in a new tab works), followed without reloading the page. */
import type { ComponentChildren } from 'preact';
import { useExplorer } from '../context.js';

interface Props {
  path: string;
  params?: Record<string, string | number | undefined>;
  class?: string;
  title?: string;
  children: ComponentChildren;
}

export function Link({ path, params, class: className, title, children }: Props) {
  const explorer = useExplorer();
  const href = explorer.href(path, params);
  return (
    <a
      href={href}
      class={className}
      title={title}
      onClick={(event) => {
        if (event.defaultPrevented || event.button !== 0) return;
        if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
        event.preventDefault();
        explorer.navigate(href);
      }}
    >
      {children}
    </a>
  );
}
