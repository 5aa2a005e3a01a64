/** Copy a value (a UUID) to the clipboard, and say so. */
import { useState } from 'preact/hooks';

export function CopyButton({ value, label = 'Copy' }: { value: string; label?: string }) {
  const [said, setSaid] = useState('');
  return (
    <button
      type="button"
      class="small"
      onClick={() => {
        if (!navigator.clipboard) return setSaid('No clipboard here (it needs https or localhost)');
        navigator.clipboard.writeText(value).then(
          () => setSaid('Copied'),
          () => setSaid('Copy refused by the browser'),
        );
      }}
    >
      {said === '' ? label : said}
    </button>
  );
}
