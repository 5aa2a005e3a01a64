/** Nodes created per month as bars (plain SVG: no chart library in the first view), with the numbers as a table. */
import { formatCount } from '../format.js';

const WIDTH = 720;
const HEIGHT = 160;
const BOTTOM = 18;

export function MonthChart({ months }: { months: { month: string; count: number }[] }) {
  if (months.length === 0) return <p class="muted">No creation dates.</p>;
  const most = Math.max(...months.map((m) => m.count), 1);
  const step = WIDTH / months.length;
  const barWidth = Math.max(1, step - (step > 4 ? 1 : 0));
  const first = months[0]!.month;
  const last = months[months.length - 1]!.month;
  return (
    <figure class="chart">
      <svg
        viewBox={`0 0 ${WIDTH} ${HEIGHT + BOTTOM}`}
        role="img"
        aria-label={`Nodes created per month from ${first} to ${last}; at most ${formatCount(most)} in a month`}
        preserveAspectRatio="none"
      >
        {months.map((m, i) => {
          const h = (m.count / most) * (HEIGHT - 4);
          return (
            <rect key={m.month} class="bar" x={i * step} y={HEIGHT - h} width={barWidth} height={h}>
              <title>{`${m.month}: ${formatCount(m.count)}`}</title>
            </rect>
          );
        })}
        {months.map((m, i) =>
          m.month.endsWith('-01') || i === 0 ? (
            <text key={`t${m.month}`} class="axis" x={i * step} y={HEIGHT + BOTTOM - 4}>
              {m.month.slice(0, 4)}
            </text>
          ) : null,
        )}
        <line class="axis-line" x1={0} x2={WIDTH} y1={HEIGHT} y2={HEIGHT} />
      </svg>
      <figcaption>
        Nodes created per month, {first} to {last}
      </figcaption>
      <details>
        <summary>As a table</summary>
        <table class="compact">
          <thead>
            <tr>
              <th scope="col">Month</th>
              <th scope="col">Nodes</th>
            </tr>
          </thead>
          <tbody>
            {months
              .filter((m) => m.count > 0)
              .map((m) => (
                <tr key={m.month}>
                  <td>{m.month}</td>
                  <td class="num">{formatCount(m.count)}</td>
                </tr>
              ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
