import type { ReactNode } from 'react';
import { Link, type To } from 'react-router-dom';
import { isWordValue } from '../lib/format.js';
import './kpi-tile.css';

/** A change against an earlier period, and whether it is good news for this metric. */
export interface KpiChange {
  text: string;
  tone: 'good' | 'bad' | 'neutral';
  /** Tooltip, e.g. the previous value. */
  title?: string;
}

/** One headline number with a caption and optional detail; links to the runs behind it. */
export function KpiTile({ label, value, detail, to, hint, change }: { label: string; value: string; detail?: ReactNode; to?: To; hint?: string; change?: KpiChange | null }) {
  const slug = label.toLowerCase().replace(/[^a-z]+/g, '-');
  const body = (
    <>
      <div className="kpi-label">{label}</div>
      <div className="kpi-value-row">
        <span className={isWordValue(value) ? 'kpi-value kpi-value-word' : 'kpi-value'} data-testid={`kpi-${slug}`}>
          {value}
        </span>
        {change && (
          <span className={`kpi-change kpi-change-${change.tone}`} title={change.title} data-testid={`kpi-change-${slug}`}>
            {change.text}
          </span>
        )}
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
