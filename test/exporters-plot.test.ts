/** The band-structure plots of mpl_pdf and mpl_png: the figure's content, and files that are what they claim. */
import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { plotDict } from '../src/domain/formats/bands-matplotlib.js';
import { figureOf, figurePdf, figurePng } from '../src/domain/formats/bands-plot.js';
import { readNpy } from '../src/domain/formats/npy.js';
import { npy } from '../src/generate/files.js';

const bands = {
  uuid: 'u',
  label: '',
  bands: readNpy(npy([-2.859, 0.5006, -1.2177, 0.3364, 0.6022, 5.7149, 1, 2], [4, 2])),
  kpoints: readNpy(npy([0, 0, 0, 0.25, 0, 0, 0.5, 0, 0, 0.5, 0.25, 0], [4, 3])),
  labels: [
    [0, 'GAMMA'],
    [2, 'X'],
    [3, 'M'],
  ] as [number, string][],
};

describe('band-structure plots', () => {
  const figure = figureOf(plotDict(bands, 'eV'));

  it('draws every band of every segment, labelled k-point ticks and the axis label', () => {
    const texts = figure.texts.map((t) => t.text);
    // X and M are neighbours in the list of k-points: a jump in the path, one tick labelled X|M.
    expect(texts).toEqual(expect.arrayContaining(['Γ', 'X|M', 'Dispersion (eV)']));
    // Two bands on the G-X segment (the X-M segment has a single step and is skipped, as the script does).
    const bandLines = figure.lines.filter((l) => l.color === '#000000' && l.points.length === 3);
    expect(bandLines).toHaveLength(2);
    expect(texts.filter((t) => /^−?\d+$/.test(t)).length).toBeGreaterThanOrEqual(4);
  });

  it('writes a PNG of 1920 x 1440 pixels (6.4 x 4.8 in at 300 dpi)', async () => {
    const png = await figurePng(figure);
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1920, 1440]);
  });

  it('writes a one-page PDF whose cross-reference table points at its objects', () => {
    const pdf = figurePdf(figure);
    const text = pdf.toString('latin1');
    expect(text.startsWith('%PDF-1.4')).toBe(true);
    const xref = Number(/startxref\n(\d+)/.exec(text)?.[1]);
    const offsets = text
      .slice(xref)
      .split('\n')
      .slice(3, 10)
      .map((l) => Number(l.split(' ')[0]));
    offsets.forEach((offset, i) => expect(text.slice(offset, offset + 8)).toBe(`${i + 1} 0 obj\n`));
    const stream = /stream\n([\s\S]*?)\nendstream/.exec(text)?.[1] ?? '';
    const drawing = inflateSync(Buffer.from(stream, 'latin1')).toString('latin1');
    expect(drawing).toContain('(Dispersion \\(eV\\)) Tj');
    expect(drawing).toContain('/F2 10 Tf');
  });
});
