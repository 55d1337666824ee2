// Reward-hacking evidence per environment or task: ended runs, the share with evidence and of
// which kind, and the success rate with and without it. An environment whose successes mostly
// come with evidence is broken; the kinds say how.
import { useMemo } from 'react';
import type { HackingGroup } from '../../../schemas/api.js';
import { DataTable, type Column } from '../components/data-table.js';
import { formatInt, formatPercent } from '../lib/format.js';
import { HACKING_KIND_TEXT } from '../lib/rl-view.js';

export function HackingTable({ rows, by }: { rows: HackingGroup[]; by: 'task' | 'environment' }) {
  const columns = useMemo<Column<HackingGroup>[]>(
    () => [
      { id: 'key', header: by === 'task' ? 'Task' : 'Environment', className: 'truncate mono', cell: (g) => g.key, cellProps: (g) => ({ title: g.key }), sortValue: (g) => g.key },
      { id: 'runs', header: 'Ended runs', numeric: true, cell: (g) => formatInt(g.runs), sortValue: (g) => g.runs },
      {
        id: 'evidence',
        header: 'With evidence',
        numeric: true,
        cell: (g) => `${formatInt(g.with_evidence)} · ${formatPercent(g.runs ? g.with_evidence / g.runs : null, 0)}`,
        sortValue: (g) => g.with_evidence,
      },
      {
        id: 'kinds',
        header: 'Kinds',
        cell: (g) =>
          Object.entries(g.by_kind).map(([k, n]) => (
            <span key={k} className="badge badge-hacking" title={HACKING_KIND_TEXT[k] ?? k}>
              {k} {formatInt(n)}
            </span>
          )),
      },
      { id: 'success_with', header: 'Success with', numeric: true, cell: (g) => formatPercent(g.success_with, 0), sortValue: (g) => g.success_with ?? -1, headerProps: { title: 'Success rate of the ended runs with evidence' } },
      { id: 'success_without', header: 'without', numeric: true, cell: (g) => formatPercent(g.success_without, 0), sortValue: (g) => g.success_without ?? -1, headerProps: { title: 'Success rate of the ended runs without evidence' } },
    ],
    [by],
  );
  return <DataTable columns={columns} rows={rows} rowKey={(g) => g.key} rowProps={(g) => ({ 'data-key': g.key })} defaultSort={{ key: 'evidence', dir: 'desc' }} pageSize={20} empty="No ended runs" testId="rl-hacking-table" />;
}
