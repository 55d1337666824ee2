import type { ReactNode } from 'react';
import { Link, type To } from 'react-router-dom';

/** One headline number with a caption and optional detail; links to the runs behind it. */
export function KpiTile({ label, value, detail, to, hint }: { label: string; value: string; detail?: ReactNode; to?: To; hint?: string }) {
  const body = (
    <>
      <div className="kpi-label">{label}</div>
      <div className="kpi-value" data-testid={`kpi-${label.toLowerCase().replace(/[^a-z]+/g, '-')}`}>
        {value}
      </div>
      {detail && <div className="kpi-detail">{detail}</div>}
    </>
  );
  return to ? (
    <Link className="kpi kpi-link" to={to} title={hint}>
      {body}
    </Link>
  ) : (
    <div className="kpi" title={hint}>
      {body}
    </div>
  );
}
