/** A rotatable 3D picture of atoms and their cell, drawn by 3Dmol (loaded only with the structure views). */
import * as $3Dmol from '3dmol';
import { useEffect, useRef, useState } from 'preact/hooks';
import { cellEdges, type Cell, type Vec3 } from '../logic/cell.js';
import { prefersDark, webGL } from './common.js';

export interface Atom {
  symbol: string;
  position: Vec3;
}

/** XYZ text, the simplest format 3Dmol reads (it finds the bonds by distance). */
function xyz(atoms: Atom[]): string {
  return `${atoms.length}\n\n${atoms.map((a) => `${a.symbol} ${a.position.join(' ')}`).join('\n')}\n`;
}

export function Crystal3D({ atoms, cell, label }: { atoms: Atom[]; cell?: Cell; label: string }) {
  const host = useRef<HTMLDivElement>(null);
  const [problem, setProblem] = useState<string>();
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
    let viewer: $3Dmol.GLViewer | undefined;
    try {
      const dark = prefersDark();
      viewer = $3Dmol.createViewer(element, {
        backgroundColor: dark ? '#0d1117' : '#ffffff',
        // Antialiasing costs seconds a frame where WebGL is drawn by the CPU, and is cheap on a GPU.
        antialias: gl === 'gpu',
      });
      viewer.addModel(xyz(atoms), 'xyz');
      viewer.setStyle({}, { sphere: { scale: 0.3 }, stick: { radius: 0.12 } });
      const [a, b, c] = cell ?? [];
      const drawCell = cell && [a, b, c].some((v) => v && v.some((x) => x !== 0));
      if (cell && drawCell) {
        for (const [p, q] of cellEdges(cell)) {
          viewer.addCylinder({
            start: { x: p[0], y: p[1], z: p[2] },
            end: { x: q[0], y: q[1], z: q[2] },
            radius: 0.04,
            color: dark ? '#9da7b3' : '#57606a',
            fromCap: 1,
            toCap: 1,
          });
        }
      }
      viewer.zoomTo();
      // zoomTo fits the bounding sphere, which leaves a cell small in the frame; this fills it and still fits.
      viewer.zoom(1.4);
      viewer.render();
      setProblem(undefined);
    } catch (error) {
      setProblem(`The 3D view could not be drawn: ${(error as Error).message}`);
    }
    return () => {
      viewer?.clear();
      element.replaceChildren();
    };
  }, [atoms, cell]);
  return (
    <>
      <div class="bt-3d-frame" hidden={problem !== undefined}>
        <div
          ref={host}
          class="bt-3d"
          role="img"
          aria-label={`3D view of ${label}: drag to rotate, scroll to zoom`}
          data-testid="structure-3d"
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
