// The `trajscope` command: serve | migrate | import | demo | gate | keys. Commands load their modules lazily.
import { Command, Option } from 'commander';
import { ConfigError, loadConfig, type Config } from './config.js';

/** Global flags, each the twin of an environment variable. */
const FLAG_ENV: [flag: string, env: string, help: string][] = [
  ['--host <host>', 'TRAJSCOPE_HOST', 'address to listen on (default 127.0.0.1)'],
  ['--port <port>', 'TRAJSCOPE_PORT', 'port to listen on (default 7300)'],
  ['--data-dir <dir>', 'TRAJSCOPE_DATA_DIR', 'embedded data folder (default ./data)'],
  ['--prices <file>', 'TRAJSCOPE_PRICES', 'model price table (JSON) overriding the shipped one'],
  ['--clickhouse-url <url>', 'CLICKHOUSE_URL', 'ClickHouse server instead of the embedded engine'],
  ['--kafka-brokers <list>', 'KAFKA_BROKERS', 'Kafka brokers, comma separated'],
  ['--log-level <level>', 'TRAJSCOPE_LOG_LEVEL', 'debug | info | warn | error | silent'],
];

function configFrom(cmd: Command): Config {
  const opts = cmd.optsWithGlobals() as Record<string, string | undefined>;
  const env: Record<string, string | undefined> = { ...process.env };
  for (const [flag, name] of FLAG_ENV) {
    const key = flag.replace(/^--/, '').replace(/ .*/, '').replace(/-(\w)/g, (_, c: string) => c.toUpperCase());
    if (opts[key] !== undefined) env[name] = opts[key];
  }
  return loadConfig(env);
}

const program = new Command('trajscope')
  .description('Observability and analytics for LLM-agent trajectories')
  .showHelpAfterError();
for (const [flag, , help] of FLAG_ENV) program.addOption(new Option(flag, help));

program
  .command('serve')
  .description('API, dashboard and in-process ingest on embedded storage (or the configured servers)')
  .option('--demo [runs]', 'when the data folder holds no runs, backfill this many demo runs first (default 1000)')
  .option('--demo-live', 'keep streaming live demo traffic while serving')
  .option('--demo-rl [steps]', 'RL demo: rollouts of this many training steps (default 12) in project rl-demo')
  .option('--no-ingest', 'with KAFKA_BROKERS: do not run a consumer of the topic in this process')
  .action(async (o: { demo?: string | boolean; demoLive?: boolean; demoRl?: string | boolean; ingest?: boolean }, cmd: Command) => {
    const demoRuns = o.demo === undefined || o.demo === false ? 0 : o.demo === true ? 1000 : parsePositive(o.demo, '--demo');
    const { runServe } = await import('./serve-command.js');
    const demoRlSteps = o.demoRl === undefined || o.demoRl === false ? 0 : o.demoRl === true ? 12 : parsePositive(o.demoRl, '--demo-rl');
    await runServe(configFrom(cmd), { demoRuns, demoLive: !!o.demoLive, demoRlSteps, ingest: o.ingest !== false });
  });

program
  .command('ingest')
  .description('a Kafka consumer worker: reads KAFKA_TOPIC as group KAFKA_GROUP_ID into storage (no HTTP)')
  .option('--status-every <seconds>', 'log a status line this often (0: never)', '30')
  .action(async (o: { statusEvery: string }, cmd: Command) => {
    const { runIngest } = await import('./ingest-command.js');
    const n = Number(o.statusEvery);
    await runIngest(configFrom(cmd), { statusEverySeconds: Number.isFinite(n) && n >= 0 ? n : 30 });
  });

program
  .command('migrate')
  .description('apply the ClickHouse migrations not yet applied')
  .action(async (_o: unknown, cmd: Command) => {
    const { runMigrate } = await import('./migrate-command.js');
    await runMigrate(configFrom(cmd));
  });

program
  .command('import')
  .description('import trajectories (SWE-agent .traj, OpenHands, tau-bench and OpenAI-style chat transcripts, Inspect .json/.eval logs, Trajscope NDJSON); the format is detected per file')
  .argument('<files...>', 'files, or folders searched recursively for .ndjson / .jsonl / .json / .traj / .eval files')
  .option('--url <url>', 'send to a running server over HTTP instead of writing the data folder')
  .option('--project <project>', 'project for events that name none')
  .option('--key <key>', 'API key (ingest scope) for a server that asks for one, with --url')
  .action(async (files: string[], o: { url?: string; project?: string; key?: string }, cmd: Command) => {
    const { runImport } = await import('./import-command.js');
    process.exitCode = await runImport(configFrom(cmd), files, o);
  });

program
  .command('demo')
  .description('generate realistic, seeded agent traffic through the ingest path')
  .option('--runs <n>', 'number of runs to backfill', '1000')
  .option('--seed <n>', 'random seed (same seed, same data)', '42')
  .option('--days <n>', 'spread the runs over the last N days', '7')
  .option('--live', 'stream live traffic instead of a backfill, until stopped')
  .option('--rate <n>', 'live events per second', '50')
  .option('--url <url>', 'send to a running server over HTTP instead of writing the data folder')
  .action(async (o: { runs: string; seed: string; days: string; live?: boolean; rate: string; url?: string }, cmd: Command) => {
    const { runDemo } = await import('./demo-command.js');
    await runDemo(configFrom(cmd), {
      runs: parsePositive(o.runs, '--runs'),
      seed: parsePositive(o.seed, '--seed'),
      days: parsePositive(o.days, '--days'),
      live: !!o.live,
      rate: parsePositive(o.rate, '--rate'),
      url: o.url,
    });
  });

program
  .command('gate')
  .description('compare a candidate cohort with a baseline; exit 1 when it regresses (CI step)')
  .option('--baseline <key=value>', 'filter of the baseline cohort (repeatable), e.g. agent_version=1.0', collect, [])
  .option('--candidate <key=value>', 'filter of the candidate cohort (repeatable), e.g. agent_version=2.0', collect, [])
  .option('--filter <key=value>', 'filter applied to both cohorts (repeatable), e.g. project=demo', collect, [])
  .option('--max-drop <fraction>', 'largest allowed completion-rate drop (default 0.05 = 5 points)')
  .option('--max-cost-increase <fraction>', 'largest allowed rise of cost per success (default 0.25 = +25%)')
  .option('--min-runs <n>', 'fewest ended runs each cohort needs, else exit 2', '1')
  .option('--url <url>', 'ask a running server instead of reading the data folder')
  .action(async (o: { baseline: string[]; candidate: string[]; filter: string[]; maxDrop?: string; maxCostIncrease?: string; minRuns: string; url?: string }, cmd: Command) => {
    const { runGate } = await import('./gate-command.js');
    process.exitCode = await runGate(configFrom(cmd), {
      baseline: o.baseline,
      candidate: o.candidate,
      shared: o.filter,
      url: o.url,
      maxDrop: o.maxDrop === undefined ? undefined : parseFraction(o.maxDrop, '--max-drop'),
      maxCostIncrease: o.maxCostIncrease === undefined ? undefined : parseFraction(o.maxCostIncrease, '--max-cost-increase'),
      minRuns: parsePositive(o.minRuns, '--min-runs'),
    });
  });

const keys = program.command('keys').description('API keys (scopes ingest, read, admin): create, list, revoke; --url to go through a running server');
const keysRemote = (c: Command) => c.option('--url <url>', 'a running server (authenticated with --key or TRAJSCOPE_ADMIN_TOKEN)').option('--key <key>', 'admin key for --url');
keysRemote(keys.command('create').description('create a key; it is printed once'))
  .requiredOption('--scope <scope>', 'ingest | read | admin')
  .option('--project <project>', 'the project the key is bound to (ingest and read keys)')
  .requiredOption('--name <name>', 'what the key is for')
  .action(async (o: { scope: string; project?: string; name: string; url?: string; key?: string }, cmd: Command) => {
    await keysAction(cmd, { action: 'create', scope: o.scope, project: o.project, name: o.name }, o);
  });
keysRemote(keys.command('list').description('list keys (never the keys themselves)')).action(async (o: { url?: string; key?: string }, cmd: Command) => {
  await keysAction(cmd, { action: 'list' }, o);
});
keysRemote(keys.command('revoke').description('revoke a key by id (effective at once)').argument('<id>')).action(async (id: string, o: { url?: string; key?: string }, cmd: Command) => {
  await keysAction(cmd, { action: 'revoke', id }, o);
});

async function keysAction(cmd: Command, a: import('./keys-command.js').KeysAction, remote: { url?: string; key?: string }): Promise<void> {
  const { runKeys } = await import('./keys-command.js');
  for (const line of await runKeys(configFrom(cmd), a, remote)) console.log(line);
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function parseFraction(v: string, flag: string): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) {
    console.error(`trajscope: ${flag} must be a non-negative number (got ${v})`);
    process.exit(2);
  }
  return n;
}

function parsePositive(v: string, flag: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) {
    console.error(`trajscope: ${flag} must be a positive integer (got ${v})`);
    process.exit(2);
  }
  return n;
}

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(`trajscope: ${err.message}`);
    process.exit(2);
  }
  console.error(`trajscope: ${(err as Error).message}`);
  process.exit(1);
}
