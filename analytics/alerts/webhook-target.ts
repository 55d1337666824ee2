// Webhook target safety: only http(s) URLs; addresses in private, loopback, link-local,
// shared (CGNAT), metadata, multicast and reserved ranges are refused unless the allow list
// (TRAJSCOPE_WEBHOOK_ALLOW: host names and CIDRs, e.g. `127.0.0.1/32`) lets them through. The
// sender checks every address a host name resolves to, at connect time (webhook-sender.ts), so
// a name that later resolves inside a refused range is still refused. URLs are shown without
// credentials and query values. Pure (node:net BlockList and isIP, no I/O).
import { BlockList, isIP } from 'node:net';

/** Ranges refused by default (RFC 6890 special-purpose, private and cloud metadata ranges). */
const REFUSED_V4 = [
  '0.0.0.0/8', '10.0.0.0/8', '100.64.0.0/10', '127.0.0.0/8', '169.254.0.0/16', '172.16.0.0/12', '192.0.0.0/24',
  '192.0.2.0/24', '192.88.99.0/24', '192.168.0.0/16', '198.18.0.0/15', '198.51.100.0/24', '203.0.113.0/24',
  '224.0.0.0/4', '240.0.0.0/4',
];
const REFUSED_V6 = ['::/128', '::1/128', '64:ff9b::/96', '100::/64', '2001:db8::/32', 'fc00::/7', 'fe80::/10', 'ff00::/8'];

const refused = new BlockList();
for (const c of REFUSED_V4) addCidr(refused, c);
for (const c of REFUSED_V6) addCidr(refused, c);

function addCidr(list: BlockList, cidr: string): void {
  const [net, bits] = cidr.split('/');
  const type = isIP(net) === 6 ? 'ipv6' : 'ipv4';
  list.addSubnet(net, Number(bits), type);
}

/** An IPv4-mapped IPv6 address (::ffff:a.b.c.d) as the IPv4 address it carries. */
function unmap(address: string): string {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return m ? m[1] : address;
}

export class InvalidAllowEntry extends Error {
  override readonly name = 'InvalidAllowEntry';
}

/** TRAJSCOPE_WEBHOOK_ALLOW parsed: host names (exact, case-insensitive) and address ranges. */
export class WebhookAllowList {
  private readonly hosts = new Set<string>();
  private readonly ranges = new BlockList();
  readonly entries: readonly string[];

  constructor(entries: readonly string[]) {
    this.entries = entries;
    for (const raw of entries) {
      const e = raw.trim().toLowerCase();
      if (!e) continue;
      const [addr, bits, extra] = e.split('/');
      const v = isIP(addr);
      if (v && extra === undefined) {
        const max = v === 4 ? 32 : 128;
        const prefix = bits === undefined ? max : Number(bits);
        if (!Number.isInteger(prefix) || prefix < 0 || prefix > max || (bits !== undefined && !/^\d+$/.test(bits))) {
          throw new InvalidAllowEntry(`TRAJSCOPE_WEBHOOK_ALLOW: bad prefix length in ${raw}`);
        }
        this.ranges.addSubnet(addr, prefix, v === 4 ? 'ipv4' : 'ipv6');
      } else if (/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(e)) {
        this.hosts.add(e);
      } else {
        throw new InvalidAllowEntry(`TRAJSCOPE_WEBHOOK_ALLOW: ${raw} is neither a host name nor an address or CIDR`);
      }
    }
  }

  hostAllowed(hostname: string): boolean {
    return this.hosts.has(hostname.toLowerCase().replace(/^\[|\]$/g, ''));
  }

  /** Whether a webhook may connect to this address (a public one, or one the list allows). */
  addressAllowed(address: string): boolean {
    const a = unmap(address);
    const v = isIP(a);
    if (!v) return false;
    const type = v === 4 ? 'ipv4' : 'ipv6';
    if (this.ranges.check(a, type)) return true;
    return !refused.check(a, type);
  }
}

export type TargetCheck = { ok: true; url: URL } | { ok: false; error: string };

/**
 * Checks a webhook URL before it is saved: http or https, a host, and (when the host is an
 * address literal or `localhost`) an address the allow list accepts.
 */
export function checkWebhookUrl(raw: string, allow: WebhookAllowList): TargetCheck {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, error: 'not a valid URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, error: `scheme ${url.protocol.replace(':', '')} is not allowed (http or https only)` };
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!host) return { ok: false, error: 'the URL has no host' };
  if (allow.hostAllowed(host)) return { ok: true, url };
  const literal = isIP(host) ? host : host === 'localhost' || host.endsWith('.localhost') ? '127.0.0.1' : null;
  if (literal && !allow.addressAllowed(literal)) {
    return { ok: false, error: `${host} is a private, loopback, link-local or reserved address; allow it with TRAJSCOPE_WEBHOOK_ALLOW` };
  }
  return { ok: true, url };
}

/** A URL as it may appear in logs and the API: no user or password, query values masked. */
export function redactUrl(raw: string): string {
  try {
    const url = new URL(raw);
    url.username = '';
    url.password = '';
    for (const k of [...url.searchParams.keys()]) url.searchParams.set(k, '***');
    return url.toString();
  } catch {
    return '(invalid URL)';
  }
}
