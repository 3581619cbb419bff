/** `npm run docs:events`: writes docs/events/<type>.schema.json for every event type of the catalog. */
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { EVENT_TYPES, eventJsonSchema, type EventType } from '../shared/events/catalog.ts';

const dir = join(import.meta.dirname, '..', 'docs', 'events');
mkdirSync(dir, { recursive: true });
for (const type of Object.keys(EVENT_TYPES) as EventType[]) {
  writeFileSync(join(dir, `${type}.schema.json`), eventJsonSchema(type));
  console.log(`docs/events/${type}.schema.json`);
}
