// Sign-in with an API key: the key is checked with the server (GET /api/v1/auth/whoami), kept in
// this tab's sessionStorage, and sent with every request. Arrives here after a 401 with the
// reason (missing, invalid or revoked key); in open mode it says no key is needed.
import { useEffect, useState, type FormEvent } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router-dom';
import type { WhoAmI } from '../../../schemas/api.js';
import { clearKey, storeKey, storedKey } from '../api/auth-session.js';
import { ApiError, getJson } from '../api/client.js';

/** What to tell someone sent here, by the server's error code. */
const REASONS: Record<string, string> = {
  missing_key: 'This server needs an API key. Sign in with a read or admin key.',
  invalid_key: 'The key that was used is not valid. Check it, or ask an admin for a new one.',
  revoked_key: 'Your key was revoked. Ask an admin for a new one.',
  signed_out: 'You are signed out.',
};

function whoAmI(): Promise<WhoAmI> {
  return getJson<WhoAmI>('/auth/whoami');
}

export function SignInPage() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const next = params.get('next') || '/';
  const reason = params.get('reason');
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [current, setCurrent] = useState<WhoAmI | null>(null);

  useEffect(() => {
    let live = true;
    whoAmI()
      .then((w) => live && setCurrent(w))
      .catch(() => live && setCurrent(null));
    return () => {
      live = false;
    };
  }, []);

  async function submit(e: FormEvent) {
    e.preventDefault();
    const candidate = key.trim();
    if (!candidate) {
      setError('Paste an API key first.');
      return;
    }
    setBusy(true);
    setError(null);
    storeKey(candidate);
    try {
      const w = await whoAmI();
      if (w.scope === 'ingest') {
        clearKey();
        setError('This is an ingest key: it can only send events. The dashboard needs a read or admin key.');
        return;
      }
      navigate(next, { replace: true });
    } catch (err) {
      clearKey();
      setError(err instanceof ApiError ? err.message : 'The key could not be checked.');
    } finally {
      setBusy(false);
    }
  }

  const open = current?.mode === 'open';
  const signedIn = !open && current !== null && storedKey() !== null;
  return (
    <div className="sign-in" style={{ minHeight: '100vh', display: 'grid', placeItems: 'center', padding: 24 }}>
      <div className="card" style={{ width: 'min(440px, 100%)', padding: 28 }}>
        <h1 style={{ margin: '0 0 4px', fontSize: 22 }}>
          <span className="brand-mark" aria-hidden="true">◆</span> Trajscope
        </h1>
        <p className="muted" style={{ margin: '0 0 18px' }}>Sign in with an API key</p>
        {reason && (
          <div className="notice" role="alert" data-testid="sign-in-reason" style={{ marginBottom: 16 }}>
            {REASONS[reason] ?? params.get('message') ?? 'Please sign in.'}
          </div>
        )}
        {open && (
          <div className="notice notice-info" data-testid="open-mode" style={{ marginBottom: 16 }}>
            This server runs in open mode: no key is configured, so it serves this machine (loopback) without one.{' '}
            <Link to="/">Go to the dashboard</Link>
          </div>
        )}
        {signedIn && current && (
          <div className="notice notice-info" style={{ marginBottom: 16 }}>
            Signed in with a {current.scope} key{current.project ? ` for project ${current.project}` : ''}. <Link to="/">Go to the dashboard</Link>
          </div>
        )}
        <form onSubmit={submit}>
          <label htmlFor="api-key" style={{ display: 'block', fontWeight: 600, marginBottom: 6 }}>
            API key
          </label>
          <input
            id="api-key"
            name="api-key"
            type="password"
            autoComplete="off"
            spellCheck={false}
            placeholder="tsk_…"
            value={key}
            onChange={(e) => setKey(e.target.value)}
            style={{ width: '100%', boxSizing: 'border-box', padding: '8px 10px', font: 'inherit', fontFamily: 'var(--font-mono, monospace)', border: '1px solid var(--c-border-strong)', borderRadius: 6, background: 'var(--c-surface)', color: 'var(--c-text)' }}
          />
          {error && (
            <div className="state-error" role="alert" data-testid="sign-in-error" style={{ marginTop: 10, fontSize: 13, padding: '8px 10px', borderRadius: 6 }}>
              {error}
            </div>
          )}
          <button type="submit" className="btn" disabled={busy} style={{ marginTop: 14, width: '100%', padding: '8px 12px', background: 'var(--c-accent)', color: 'var(--c-on-accent)', borderColor: 'var(--c-accent)' }}>
            {busy ? 'Checking…' : 'Sign in'}
          </button>
        </form>
        <p className="muted" style={{ fontSize: 12.5, margin: '16px 0 0' }}>
          The key stays in this browser tab only (session storage) and is forgotten when the tab closes. Admins create keys
          with <code>trajscope keys create --scope read --project NAME --name WHO</code>.
        </p>
      </div>
    </div>
  );
}
