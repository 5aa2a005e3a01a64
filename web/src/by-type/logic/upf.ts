/**
 * A pseudopotential's radial functions from its UPF `json` download (`pseudo_potential`): the projectors, the
 * atomic wave functions, the local potential and the charge densities, each as lines over the radial grid, cut
 * where they have died away so that the plot shows their shape.
 */

export interface RadialFunction {
  radial_function: number[];
  label?: string;
  angular_momentum?: number;
}

export interface UpfJson {
  header?: Record<string, unknown>;
  radial_grid?: number[];
  local_potential?: number[];
  core_charge_density?: number[];
  total_charge_density?: number[];
  beta_projectors?: RadialFunction[];
  atomic_wave_functions?: RadialFunction[];
}

export interface RadialSet {
  key: string;
  title: string;
  yLabel: string;
  lines: { name: string; points: [number, number][] }[];
}

const L = ['s', 'p', 'd', 'f', 'g'];

function line(grid: number[], values: number[], name: string): { name: string; points: [number, number][] } {
  const n = Math.min(grid.length, values.length);
  const points: [number, number][] = [];
  for (let i = 0; i < n; i++)
    if (Number.isFinite(grid[i]) && Number.isFinite(values[i])) points.push([grid[i]!, values[i]!]);
  return { name, points };
}

/** Cut a set's lines where every one of them stays below 1e-4 of the set's largest magnitude. */
function trimmed(set: RadialSet): RadialSet {
  let peak = 0;
  for (const l of set.lines) for (const [, y] of l.points) peak = Math.max(peak, Math.abs(y));
  let end = 0;
  for (const l of set.lines)
    l.points.forEach(([x, y]) => {
      if (Math.abs(y) > peak * 1e-4) end = Math.max(end, x);
    });
  if (end === 0) return set;
  return {
    ...set,
    lines: set.lines.map((l) => ({ ...l, points: l.points.filter(([x]) => x <= end * 1.05) })),
  };
}

export function radialSets(upf: UpfJson): RadialSet[] {
  const grid = upf.radial_grid;
  if (!Array.isArray(grid) || grid.length === 0) return [];
  const named = (f: RadialFunction, i: number, kind: string) =>
    `${f.label ?? `${kind} ${i + 1}`}${typeof f.angular_momentum === 'number' ? ` (l=${L[f.angular_momentum] ?? f.angular_momentum})` : ''}`;
  const sets: RadialSet[] = [];
  if (upf.beta_projectors?.length)
    sets.push({
      key: 'beta',
      title: 'Projectors β(r)',
      yLabel: 'β(r)',
      lines: upf.beta_projectors.map((f, i) => line(grid, f.radial_function ?? [], named(f, i, 'β'))),
    });
  if (upf.atomic_wave_functions?.length)
    sets.push({
      key: 'wfc',
      title: 'Atomic wave functions χ(r)',
      yLabel: 'χ(r)',
      lines: upf.atomic_wave_functions.map((f, i) => line(grid, f.radial_function ?? [], named(f, i, 'χ'))),
    });
  if (upf.local_potential?.length)
    sets.push({
      key: 'local',
      title: 'Local potential',
      yLabel: 'V_loc(r) (Ry)',
      lines: [line(grid, upf.local_potential, 'local potential')],
    });
  const densities = [
    upf.core_charge_density?.length ? line(grid, upf.core_charge_density, 'core charge') : undefined,
    upf.total_charge_density?.length ? line(grid, upf.total_charge_density, 'total charge') : undefined,
  ].filter((l) => l !== undefined);
  if (densities.length)
    sets.push({ key: 'rho', title: 'Charge densities', yLabel: 'ρ(r)', lines: densities });
  return sets.map(trimmed);
}
