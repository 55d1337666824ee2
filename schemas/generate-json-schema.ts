// npm run schema:generate — rewrites schemas/event.schema.json from the zod contract.
import { writeFileSync } from 'node:fs';
import { eventJsonSchemaText } from './json-schema.js';
import { repoPath } from './paths.js';

const file = repoPath('schemas', 'event.schema.json');
writeFileSync(file, eventJsonSchemaText());
console.log(`wrote ${file}`);
