import type { Config } from '../config/config.js';
import { openStorage } from '../storage/gateway.js';
import { DataFolderInUseError } from '../storage/data-folder-owner.js';
import { migrate } from '../storage/migrate.js';

export async function runMigrate(config: Config): Promise<void> {
  const storage = await openStorage({ ...config.clickhouse, dataDir: config.dataDir }).catch((err: unknown) => {
    if (err instanceof DataFolderInUseError && err.holder.url) {
      throw new DataFolderInUseError(err.dataDir, err.holder, {
        cause: err.cause,
        message: `the data folder ${err.dataDir} is in use by a running Trajscope server (pid ${err.holder.pid}, ${err.holder.url}), which applied the migrations when it started; stop it to run migrate`,
      });
    }
    throw err;
  });
  try {
    const applied = await migrate(storage, undefined, (name) => console.log(`applying ${name}`));
    console.log(applied.length ? `applied: ${applied.join(', ')}` : 'nothing to apply: the schema is up to date');
  } finally {
    await storage.close();
  }
}
