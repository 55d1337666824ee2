import type { Config } from './config.js';
import { openStorage } from '../storage/gateway.js';
import { migrate } from '../storage/migrate.js';

export async function runMigrate(config: Config): Promise<void> {
  const storage = await openStorage({ ...config.clickhouse, dataDir: config.dataDir });
  try {
    const applied = await migrate(storage);
    console.log(applied.length ? `applied: ${applied.join(', ')}` : 'nothing to apply: the schema is up to date');
  } finally {
    await storage.close();
  }
}
