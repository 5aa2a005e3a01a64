/**
 * BandsData as matplotlib scripts (`mpl_singlefile` with the data inline, `mpl_withjson` reading
 * `_data.json`), the scripts aiida writes, and the data dictionary they plot (also what mpl_pdf/mpl_png draw).
 */
import { headerComment, plotData, segments, type Bands } from './bands.js';
import { PyFloat, pyJson } from './python-text.js';

const HEADER = `# -*- coding: utf-8 -*-

from matplotlib import rc
# Uncomment to change default font
#rc('font',**{'family':'sans-serif','sans-serif':['Helvetica']})
rc('font', **{'family': 'serif', 'serif': ['Computer Modern', 'CMU Serif', 'Times New Roman', 'DejaVu Serif']})
# To use proper font for, e.g., Gamma if usetex is set to False
rc('mathtext', fontset='cm')

rc('text', usetex=True)

import pylab as pl

# I use json to make sure the input is sanitized
import json

print_comment = False
`;

/** Several segments: one line per band and segment, the first of each spin labelled for the legend. */
const MANY_SEGMENTS = `
for path in paths:
    if path['length'] <= 1:
        # Avoid printing empty lines
        continue
    x = path['x']
    #for band in bands:
    for band, band_type in zip(path['values'], all_data['band_type_idx']):

        # For now we support only two colors
        if band_type % 2 == 0:
            further_plot_options = further_plot_options1
        else:
            further_plot_options = further_plot_options2

        # Put the legend text only once
        label = None
        if first_band_1 and band_type % 2 == 0:
            first_band_1 = False
            label = all_data.get('legend_text', None)
        elif first_band_2 and band_type % 2 == 1:
            first_band_2 = False
            label = all_data.get('legend_text2', None)

        p.plot(x, band, label=label,
               **further_plot_options
        )
`;

/** A single segment: its points as horizontal markers. */
const ONE_SEGMENT = `
path = paths[0]
values = path['values']
x = [path['x'] for _ in values]
p.scatter(x, values, marker="_")
`;

/** The options of the second spin default to those of the first. */
const secondSpinOption = (name: string) =>
  `further_plot_options2['${name}'] = all_data.get('bands_${name}2',\n    further_plot_options1['${name}']\n    )\n`;

const FIRST_SPIN_OPTIONS: [string, string][] = [
  ['color', "'k'"],
  ['linewidth', '0.5'],
  ['linestyle', 'None'],
  ['marker', 'None'],
  ['markersize', 'None'],
  ['markeredgecolor', 'None'],
  ['markeredgewidth', 'None'],
  ['markerfacecolor', 'None'],
];

function body(plotCode: string): string {
  const first = FIRST_SPIN_OPTIONS.map(
    ([name, fallback]) => `further_plot_options1['${name}'] = all_data.get('bands_${name}', ${fallback})\n`,
  ).join('');
  const second = FIRST_SPIN_OPTIONS.slice(1)
    .map(([name]) => secondSpinOption(name))
    .join('');
  return `all_data = json.loads(all_data_str)

if not all_data.get('use_latex', False):
    rc('text', usetex=False)

#x = all_data['x']
#bands = all_data['bands']
paths = all_data['paths']
tick_pos = all_data['tick_pos']
tick_labels = all_data['tick_labels']

# Option for bands (all, or those of type 1 if there are two spins)
further_plot_options1 = {}
${first}
# Options for second-type of bands if present (e.g. spin up vs. spin down)
further_plot_options2 = {}
further_plot_options2['color'] = all_data.get('bands_color2', 'r')
# Use the values of further_plot_options1 by default
${second}
fig = pl.figure()
p = fig.add_subplot(1,1,1)

first_band_1 = True
first_band_2 = True

${plotCode}

p.set_xticks(tick_pos)
p.set_xticklabels(tick_labels)
p.set_xlim([all_data['x_min_lim'], all_data['x_max_lim']])
p.set_ylim([all_data['y_min_lim'], all_data['y_max_lim']])
p.xaxis.grid(True, which='major', color='#888888', linestyle='-', linewidth=0.5)

if all_data.get('plot_zero_axis', False):
    p.axhline(
        0.,
        color=all_data.get('zero_axis_color', '#888888'),
        linestyle=all_data.get('zero_axis_linestyle', '--'),
        linewidth=all_data.get('zero_axis_linewidth', 0.5),
        )
if all_data['title']:
    p.set_title(all_data['title'])
if all_data['legend_text']:
    p.legend(loc='best')
p.set_ylabel(all_data['yaxis_label'])

try:
    if print_comment:
        print(all_data['comment'])
except KeyError:
    pass
`;
}

export interface PlotDict {
  paths: ReturnType<typeof segments>['paths'];
  band_type_idx: number[];
  tick_pos: PyFloat[];
  tick_labels: string[];
  legend_text: null;
  legend_text2: null;
  yaxis_label: string;
  title: string;
  comment: string;
  x_min_lim: PyFloat;
  x_max_lim: PyFloat;
  y_min_lim: PyFloat;
  y_max_lim: PyFloat;
}

/** The data the scripts plot, key for key as aiida's _matplotlib_get_dict builds it. */
export function plotDict(b: Bands, units: string): PlotDict {
  const p = plotData(b, 'latex_seekpath', '|');
  const values = p.y.flat().filter((v) => !Number.isNaN(v));
  return {
    paths: segments(b).paths,
    band_type_idx: p.bandTypes,
    tick_pos: p.labels.map(([pos]) => new PyFloat(pos)),
    tick_labels: p.labels.map(([, name]) => name),
    legend_text: null,
    legend_text2: null,
    yaxis_label: `Dispersion (${units})`,
    title: '',
    comment: headerComment(b, p),
    x_min_lim: new PyFloat(Math.min(...p.x)),
    x_max_lim: new PyFloat(Math.max(...p.x)),
    y_min_lim: new PyFloat(Math.min(...values)),
    y_max_lim: new PyFloat(Math.max(...values)),
  };
}

const plotCode = (d: PlotDict) => (d.paths.length === 1 ? ONE_SEGMENT : MANY_SEGMENTS);

export function mplSinglefile(b: Bands, units: string): string {
  const data = plotDict(b, units);
  return `${HEADER}all_data_str = r"""${pyJson(data, 2, 'python')}"""\n${body(plotCode(data))}pl.show()`;
}

export function mplWithJson(b: Bands, units: string): string {
  const data = plotDict(b, units);
  const load = `with open("_data.json", encoding='utf8') as f:\n    all_data_str = f.read()\n`;
  return `${HEADER}${load}${body(plotCode(data))}pl.show()`;
}
