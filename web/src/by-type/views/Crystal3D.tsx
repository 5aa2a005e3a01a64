/**
 * A rotatable 3D picture of atoms and their cell, drawn by 3Dmol (loaded only with the structure views), with
 * bonds and element labels the reader turns on and off, views along the cell's vectors, and the picture as a PNG
 * (and, for a structure, its POSCAR) to download.
 */
import * as $3Dmol from '3dmol';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { bondPairs } from '../logic/bonds.js';
import { cellEdges, type Cell, type Vec3 } from '../logic/cell.js';
import { prefersDark, webGL } from './common.js';
import { viewAlong } from '../logic/poscar.js';

/** Past this many atoms labels are offered no more: each is a sprite, and thousands hide the crystal. */
export const LABELLED_ATOMS = 500;

export interface Atom {
  symbol: string;
  position: Vec3;
}

/** The centre of the box around some points. */
function boxCentre(points: Vec3[]): Vec3 {
  const lo: Vec3 = [Infinity, Infinity, Infinity];
  const hi: Vec3 = [-Infinity, -Infinity, -Infinity];
  for (const p of points)
    for (let k = 0; k < 3; k++) {
      lo[k] = Math.min(lo[k]!, p[k]!);
      hi[k] = Math.max(hi[k]!, p[k]!);
    }
  return [(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, (lo[2] + hi[2]) / 2];
}

/** 3Dmol's atoms with our bonds (its own guess adds a fixed 0.25 Å to the radii, whatever the tolerance). */
function modelAtoms(atoms: Atom[], pairs: [number, number][]): $3Dmol.AtomSpec[] {
  const out = atoms.map((a, index) => ({
    elem: a.symbol,
    x: a.position[0],
    y: a.position[1],
    z: a.position[2],
    index,
    serial: index,
    bonds: [] as number[],
    bondOrder: [] as number[],
  }));
  for (const [i, j] of pairs) {
    out[i]!.bonds.push(j);
    out[i]!.bondOrder.push(1);
    out[j]!.bonds.push(i);
    out[j]!.bondOrder.push(1);
  }
  return out;
}

/** Saves `href` (a data or blob URL) under `name`, as a download link would. */
function save(href: string, name: string): void {
  const link = document.createElement('a');
  link.href = href;
  link.download = name;
  link.click();
}

/** A file name from a label: letters, digits, dots and dashes. */
const fileName = (label: string, extension: string) =>
  `${label.replace(/[^\w.-]+/g, '_').replace(/^_+|_+$/g, '') || 'structure'}.${extension}`;

export function Crystal3D({
  atoms,
  cell,
  label,
  poscar,
}: {
  atoms: Atom[];
  cell?: Cell;
  label: string;
  /** The structure as a POSCAR, offered as a download beside the picture. */
  poscar?: string;
}) {
  const host = useRef<HTMLDivElement>(null);
  const viewer = useRef<$3Dmol.GLViewer | undefined>(undefined);
  // How many atoms the view was fitted to (0: not yet).
  const fitted = useRef(0);
  const [problem, setProblem] = useState<string>();
  const [showBonds, setShowBonds] = useState(true);
  const [showLabels, setShowLabels] = useState(false);
  const labellable = atoms.length <= LABELLED_ATOMS;
  const pairs = useMemo(() => bondPairs(atoms, $3Dmol.bondLength), [atoms]);
  // What the picture holds once drawn: the tests read it here, since the canvas itself cannot be read.
  const [drawnCounts, setDrawnCounts] = useState({ bonds: 0, labels: 0 });

  // One viewer (one WebGL context) for the component's life: a trajectory's steps redraw in it.
  useEffect(() => {
    const element = host.current;
    if (!element) return;
    const gl = webGL();
    if (gl === 'none') {
      setProblem(
        'The 3D view needs WebGL, which this browser does not offer; the tables below list the same data.',
      );
      return;
    }
    try {
      viewer.current = $3Dmol.createViewer(element, {
        backgroundColor: prefersDark() ? '#0d1117' : '#ffffff',
        // Antialiasing costs seconds a frame where WebGL is drawn by the CPU, and is cheap on a GPU.
        antialias: gl === 'gpu',
      });
    } catch (error) {
      setProblem(`The 3D view could not be drawn: ${(error as Error).message}`);
    }
    return () => {
      viewer.current?.clear();
      viewer.current = undefined;
      fitted.current = 0;
      element.replaceChildren();
    };
  }, []);

  useEffect(() => {
    const v = viewer.current;
    if (!v) return;
    try {
      v.removeAllModels();
      v.removeAllShapes();
      v.removeAllLabels();
      const bonds = showBonds ? pairs : [];
      v.addModel().addAtoms(modelAtoms(atoms, bonds));
      v.setStyle(
        {},
        showBonds ? { sphere: { scale: 0.3 }, stick: { radius: 0.12 } } : { sphere: { scale: 0.3 } },
      );
      const labels = showLabels && labellable;
      if (labels)
        v.addPropertyLabels(
          'elem',
          {},
          {
            fontSize: 12,
            fontColor: prefersDark() ? '#e6edf3' : '#1f2328',
            // A light plate behind each symbol: it reads on any element's colour.
            showBackground: true,
            backgroundColor: prefersDark() ? '#0d1117' : '#ffffff',
            backgroundOpacity: 0.7,
            borderThickness: 0,
            alignment: 'center',
            inFront: true,
          },
        );
      const drawn = cell && cell.some((vector) => vector.some((x) => x !== 0)) ? cell : undefined;
      if (drawn) {
        const colour = prefersDark() ? '#9da7b3' : '#57606a';
        for (const [p, q] of cellEdges(drawn)) {
          v.addCylinder({
            start: { x: p[0], y: p[1], z: p[2] },
            end: { x: q[0], y: q[1], z: q[2] },
            radius: 0.04,
            color: colour,
            fromCap: 1,
            toCap: 1,
          });
        }
      }
      // Fitted again only when the number of atoms changes (a supercell): a redraw of the same atoms (the next
      // step of a trajectory, bonds or labels turned on) keeps the reader's rotation and zoom.
      if (fitted.current !== atoms.length) {
        v.zoomTo();
        // zoomTo centres on the atoms; a cell reaching beyond them would hang off the frame. Centre on both.
        if (drawn) {
          const view = v.getView();
          const centre = boxCentre([...atoms.map((a) => a.position), ...cellEdges(drawn).flat()]);
          v.setView([-centre[0], -centre[1], -centre[2], ...view.slice(3)]);
        }
        fitted.current = atoms.length;
      }
      v.render();
      setDrawnCounts({ bonds: bonds.length, labels: labels ? atoms.length : 0 });
      setProblem(undefined);
    } catch (error) {
      setProblem(`The 3D view could not be drawn: ${(error as Error).message}`);
    }
  }, [atoms, cell, pairs, showBonds, showLabels, labellable]);
  const axes = cell && cell.some((vector) => vector.some((x) => x !== 0)) ? cell : undefined;
  const lookAlong = (axis: number) => {
    const v = viewer.current;
    if (!v || !axes) return;
    const view = v.getView();
    v.setView([...view.slice(0, 4), ...viewAlong(axes[axis]!)]);
    v.render();
  };
  const savePng = () => {
    const v = viewer.current;
    if (!v) return;
    v.render();
    save(v.pngURI(), fileName(label, 'png'));
  };
  const savePoscar = () => {
    if (poscar === undefined) return;
    const url = URL.createObjectURL(new Blob([poscar], { type: 'text/plain' }));
    save(url, fileName(label, 'poscar'));
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  };
  return (
    <>
      {problem === undefined && (
        <div class="bt-supercell" role="group" aria-label="Show in 3D">
          <label>
            <input
              type="checkbox"
              checked={showBonds}
              onChange={(event) => setShowBonds((event.currentTarget as HTMLInputElement).checked)}
            />{' '}
            Bonds
          </label>
          <label title={labellable ? undefined : `Labels are offered up to ${LABELLED_ATOMS} atoms`}>
            <input
              type="checkbox"
              checked={showLabels && labellable}
              disabled={!labellable}
              onChange={(event) => setShowLabels((event.currentTarget as HTMLInputElement).checked)}
            />{' '}
            Labels
          </label>
        </div>
      )}
      {problem === undefined && (
        <div class="bt-supercell" role="group" aria-label="View and save">
          {axes &&
            [0, 1, 2].map((axis) => (
              <button key={axis} type="button" onClick={() => lookAlong(axis)} data-axis={'abc'[axis]}>
                Along {'abc'[axis]}
              </button>
            ))}
          <button type="button" onClick={savePng}>
            Save PNG
          </button>
          {poscar !== undefined && (
            <button type="button" onClick={savePoscar}>
              POSCAR
            </button>
          )}
        </div>
      )}
      <div class="bt-3d-frame" hidden={problem !== undefined}>
        <div
          ref={host}
          class="bt-3d"
          role="img"
          aria-label={`3D view of ${label}: drag to rotate, scroll to zoom`}
          data-testid="structure-3d"
          data-bonds={drawnCounts.bonds}
          data-labels={drawnCounts.labels}
        />
      </div>
      {problem !== undefined && (
        <div class="problem" role="alert">
          {problem}
        </div>
      )}
    </>
  );
}
