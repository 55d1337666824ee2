// Whether the server may listen where it is asked to: without any key configured it serves only
// loopback (open mode). Pure.

export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h) || h === '::ffff:127.0.0.1';
}

/** Why the server must not listen on `host`, or null when it may. */
export function listenRefusal(host: string, authEnforced: boolean): string | null {
  if (authEnforced || isLoopback(host)) return null;
  return (
    `refusing to listen on ${host}: no API key is configured, so anyone who can reach this address could read and write everything. ` +
    'Set TRAJSCOPE_ADMIN_TOKEN (and create keys with `trajscope keys create`), or listen on 127.0.0.1'
  );
}
