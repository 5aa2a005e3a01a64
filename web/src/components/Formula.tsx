/** A chemical formula with its counts as subscripts (the text stays the formula for copy and search). */
import { formulaParts } from '../chemistry.js';

export function Formula({ formula }: { formula: string }) {
  return (
    <span class="formula" data-formula={formula}>
      {formulaParts(formula).map((p, i) => (p.sub ? <sub key={i}>{p.text}</sub> : p.text))}
    </span>
  );
}
