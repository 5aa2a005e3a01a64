/**
 * Elements chosen on a periodic table: each a toggle button (pressed when chosen), with the number of matches
 * that hold it where the search counted them. Elements no match holds are dimmed, not disabled: a search may
 * start from them.
 */
import { CELLS } from '../periodic.js';

interface Props {
  chosen: string[];
  counts: Record<string, number>;
  onToggle(symbol: string): void;
}

export function PeriodicPicker({ chosen, counts, onToggle }: Props) {
  return (
    <div class="periodic" role="group" aria-label="Periodic table">
      {CELLS.map(({ symbol, row, column }) => {
        const count = counts[symbol];
        const pressed = chosen.includes(symbol);
        return (
          <button
            key={symbol}
            type="button"
            class={`element${count === undefined ? ' none' : ''}`}
            style={{ gridRow: row, gridColumn: column }}
            aria-pressed={pressed}
            aria-label={`${symbol}${count === undefined ? '' : `, ${count} matches`}`}
            title={count === undefined ? symbol : `${symbol}: ${count} matches`}
            data-element={symbol}
            onClick={() => onToggle(symbol)}
          >
            {symbol}
          </button>
        );
      })}
    </div>
  );
}
