// vitest globalSetup of the integration tests: makes sure a local Kafka broker answers on
// 127.0.0.1:9092 (starting it with scripts/kafka-start.sh, which fetches it from Maven Central
// on first use), and stops it afterwards when it was started here.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

function brokerAnswers(): boolean {
  try {
    execFileSync(process.execPath, [`${root}scripts/kafka-ping.mjs`, '127.0.0.1:9092'], { stdio: 'ignore', timeout: 15_000 });
    return true;
  } catch {
    return false;
  }
}

export default function setup(): () => void {
  if (brokerAnswers()) return () => {};
  execFileSync('bash', [`${root}scripts/kafka-start.sh`], { stdio: ['ignore', 'inherit', 'inherit'], timeout: 280_000 });
  return () => {
    execFileSync('bash', [`${root}scripts/kafka-stop.sh`], { stdio: ['ignore', 'inherit', 'inherit'], timeout: 60_000 });
  };
}
