// Path patterns for the files a verifier uses. A pattern is a RegExp tested against a path, or a
// simple glob: "dir/" matches that directory anywhere in a path (and the directory itself);
// a glob without "/" matches the file name ("test_*.py"); any other glob matches the end of the
// path (".github/workflows/*.yml"). "*" matches within one path segment.

export type PathPattern = string | RegExp;

export function compilePathPattern(pattern: PathPattern): RegExp {
  if (pattern instanceof RegExp) return pattern;
  const escape = (s: string) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*');
  if (pattern.endsWith('/')) return new RegExp(`(^|/)${escape(pattern.slice(0, -1))}(/|$)`);
  return new RegExp(`(^|/)${escape(pattern)}$`);
}

export function matchesAny(path: string, patterns: readonly RegExp[]): boolean {
  const clean = path.replace(/^\.\//, '');
  return patterns.some((p) => {
    p.lastIndex = 0;
    return p.test(clean);
  });
}

/** Path-like tokens of a text: runs of characters that occur in file paths, quotes removed. */
export function pathTokens(text: string): string[] {
  return (text.match(/[\w.~\-/*]+/g) ?? []).map((t) => t.replace(/[.,:]+$/, '')).filter((t) => /[\w]/.test(t));
}
