// The API key of this browser tab: kept in sessionStorage (gone when the tab closes), sent with
// every API request by the client, and dropped on a 401, which leads to the sign-in page with
// the server's reason.

const STORAGE_KEY = 'trajscope.apiKey';

function session(): Storage | null {
  try {
    return typeof window === 'undefined' ? null : window.sessionStorage;
  } catch {
    return null;
  }
}

export function storedKey(): string | null {
  return session()?.getItem(STORAGE_KEY) ?? null;
}

export function storeKey(key: string): void {
  session()?.setItem(STORAGE_KEY, key.trim());
}

export function clearKey(): void {
  session()?.removeItem(STORAGE_KEY);
}

/** The Authorization header of the stored key (none in open mode). */
export function authHeaders(): Record<string, string> {
  const key = storedKey();
  return key ? { authorization: `Bearer ${key}` } : {};
}

/** Where the sign-in page sends the user back to, and why they are there. */
export function signInPath(reason: string, message?: string, next?: string): string {
  const q = new URLSearchParams({ reason });
  if (message) q.set('message', message);
  if (next && next !== '/sign-in') q.set('next', next);
  return `/sign-in?${q.toString()}`;
}

/**
 * Called with every failed API answer: a 401 (missing, invalid or revoked key) drops the key
 * and opens the sign-in page with the server's reason. Returns the error to throw.
 */
export function noticeUnauthorized<E extends { status: number; code: string; message: string }>(err: E): E {
  if (err.status !== 401 || typeof window === 'undefined') return err;
  const here = window.location.pathname;
  if (here === '/sign-in') return err;
  clearKey();
  window.location.assign(signInPath(err.code, err.message, here + window.location.search));
  return err;
}
