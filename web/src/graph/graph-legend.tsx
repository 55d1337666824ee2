// The key under a graph's title: what width and colour of an edge mean.
import { failureColor } from '../lib/graph-layout.js';
import { formatPercent } from '../lib/format.js';

/** `base`: the cohort's failure rate, the middle of its colour scale (cohort graph only). */
export function GraphLegend({ kind, base = 0 }: { kind: 'run' | 'cohort'; base?: number }) {
  const stops: [number, string][] =
    kind === 'run'
      ? [[0, 'calls succeeded'], [0.5, 'half failed'], [1, 'calls failed']]
      : [[0, 'runs succeeded'], [0.5, `failed as often as the average run (${formatPercent(base, 0)})`], [1, 'runs all failed']];
  return (
    <div className="graph-legend" aria-label="Legend">
      <span>width: {kind === 'run' ? 'times taken' : 'transitions'}</span>
      {stops.map(([at, text]) => (
        <span key={at}>
          <span className="graph-legend-swatch" style={{ background: failureColor(at) }} />
          {text}
        </span>
      ))}
      <span>{kind === 'run' ? 'label: ×times (loops: ↻ repetitions · cost)' : 'label: P(next | current)'}</span>
    </div>
  );
}
