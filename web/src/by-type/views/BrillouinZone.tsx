/**
 * The first Brillouin zone of a k-point set's cell (the faces the server derives) with the k-points in it, and
 * the path through them when the set is a labelled path: drawn in SVG, turned by dragging or the arrow keys.
 */
import { useState } from 'preact/hooks';

type Vec3 = [number, number, number];

interface Props {
  faces: Vec3[][];
  points: Vec3[];
  /** Labelled points (index into `points`, label): the path's high-symmetry points. */
  labels: { index: number; label: string }[];
}

const SIZE = 320;

function rotate([x, y, z]: Vec3, yaw: number, pitch: number): Vec3 {
  const [cy, sy, cp, sp] = [Math.cos(yaw), Math.sin(yaw), Math.cos(pitch), Math.sin(pitch)];
  const x1 = cy * x - sy * y;
  const y1 = sy * x + cy * y;
  return [x1, cp * y1 - sp * z, sp * y1 + cp * z];
}

export function BrillouinZone({ faces, points, labels }: Props) {
  const [angles, setAngles] = useState({ yaw: 0.6, pitch: -1.2 });
  const [drag, setDrag] = useState<{ x: number; y: number } | undefined>(undefined);
  let reach = 1e-9;
  for (const face of faces) for (const v of face) reach = Math.max(reach, Math.hypot(...v));
  const scale = (SIZE / 2 - 24) / reach;
  const project = (v: Vec3) => {
    const [x, y] = rotate(v, angles.yaw, angles.pitch);
    return { x: SIZE / 2 + x * scale, y: SIZE / 2 - y * scale };
  };
  const turn = (yaw: number, pitch: number) =>
    setAngles((a) => ({ yaw: a.yaw + yaw, pitch: Math.max(-Math.PI, Math.min(Math.PI, a.pitch + pitch)) }));
  const path = labels.length > 1 ? points.map(project) : [];
  return (
    <figure class="bt-bz">
      <svg
        viewBox={`0 0 ${SIZE} ${SIZE}`}
        class="bt-bz-svg"
        role="img"
        // Lowercase: on an SVG element the attribute is set as written, and only `tabindex` makes it focusable.
        tabindex={0}
        aria-label={`First Brillouin zone (${faces.length} faces) with ${points.length} k-points; arrow keys turn it`}
        data-testid="brillouin-zone"
        onPointerDown={(e) => {
          (e.currentTarget as SVGSVGElement).setPointerCapture(e.pointerId);
          setDrag({ x: e.clientX, y: e.clientY });
        }}
        onPointerMove={(e) => {
          if (!drag) return;
          turn((e.clientX - drag.x) / 100, (e.clientY - drag.y) / 100);
          setDrag({ x: e.clientX, y: e.clientY });
        }}
        onPointerUp={() => setDrag(undefined)}
        onKeyDown={(e) => {
          const step = {
            ArrowLeft: [-0.1, 0],
            ArrowRight: [0.1, 0],
            ArrowUp: [0, -0.1],
            ArrowDown: [0, 0.1],
          }[e.key];
          if (!step) return;
          e.preventDefault();
          turn(step[0]!, step[1]!);
        }}
      >
        {faces.map((face, i) => (
          <polygon
            key={i}
            class="bt-bz-face"
            points={face
              .map(project)
              .map((p) => `${p.x},${p.y}`)
              .join(' ')}
          />
        ))}
        {path.length > 1 && (
          <polyline class="bt-bz-path" points={path.map((p) => `${p.x},${p.y}`).join(' ')} />
        )}
        {points.map((v, i) => {
          const p = project(v);
          return <circle key={i} class="bt-bz-point" cx={p.x} cy={p.y} r={points.length > 100 ? 1.5 : 2.5} />;
        })}
        {labels.map(({ index, label }, i) => {
          const v = points[index];
          if (!v) return null;
          const p = project(v);
          return (
            <text key={i} class="bt-bz-label" x={p.x + 4} y={p.y - 4} data-label={label}>
              {label}
            </text>
          );
        })}
      </svg>
      <figcaption class="bt-muted">Drag, or use the arrow keys, to turn the zone.</figcaption>
    </figure>
  );
}
