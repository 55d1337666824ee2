// A small leveled logger writing one line per message to stderr.
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };

export interface Logger {
  debug(msg: string): void;
  info(msg: string): void;
  warn(msg: string, err?: unknown): void;
  error(msg: string, err?: unknown): void;
}

export function createLogger(level: LogLevel): Logger {
  const at = (l: LogLevel) => (msg: string, err?: unknown) => {
    if (ORDER[l] < ORDER[level]) return;
    const detail = err instanceof Error ? `: ${err.message}` : err ? `: ${String(err)}` : '';
    process.stderr.write(`${new Date().toISOString()} ${l.padEnd(5)} ${msg}${detail}\n`);
  };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}
