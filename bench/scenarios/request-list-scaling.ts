/**
 * Requests issue: the list must not read or sort the whole dataspace to serve one page of an
 * ordering. Page 1 with ordering=-title, and with ordering=priority&status=open, at 10,000 requests
 * in one dataspace may take at most 1.5 times what it takes at 1,000 (measured interleaved).
 */
import { randomUUID } from 'node:crypto';
import type { Scenario } from '../lib/scenario.ts';
import type { BenchFigure } from '../lib/results.ts';
import { createUserWithKey, patientDocumentClient, writeAll } from '../lib/seed.ts';
import { timeInterleaved } from '../lib/load.ts';
import { requestSeedItems } from '../../shared/store/request-store.ts';
import { RequestStore } from '../../shared/store/request-store.ts';
import { REQUEST_STATUSES, type RequestRecord } from '../../shared/domain/request.ts';
import { isoWithOffset } from '../../shared/domain/time.ts';

const SIZES = [1_000, 10_000] as const;
const PRIORITIES = ['Urgent', 'High', 'Normal', 'Low'];
const QUERIES = ['?ordering=-title', '?ordering=priority&status=open'];
const REPETITIONS = 40;

function requests(dataspace: string, count: number, templateUuid: string, users: readonly string[]): RequestRecord[] {
  const start = Date.parse('2026-01-01T00:00:00Z');
  return Array.from({ length: count }, (_, i) => {
    const at = isoWithOffset(new Date(start + i * 60_000));
    return {
      uuid: randomUUID(),
      dataspace,
      title: `Review ${randomUUID().slice(0, 8)}`,
      templateUuid,
      templateName: 'Package Review',
      contentType: 'product',
      status: REQUEST_STATUSES[i % 3]!,
      priority: i % 5 === 0 ? null : PRIORITIES[i % PRIORITIES.length]!,
      assignee: i % 7 === 0 ? null : users[(i + 1) % users.length]!,
      requester: users[i % users.length]!,
      productContext: null,
      contentObject: null,
      notes: '',
      serializedData: { Justification: 'bench' },
      isPrivate: i % 10 === 0,
      ccEmails: [],
      lastModifiedBy: users[i % users.length]!,
      createdDate: at,
      lastModifiedDate: at,
      rev: 0,
    };
  });
}

export const requestListScaling: Scenario = {
  name: 'request list scaling',
  async run({ apiUrl, tableName, dynamodbEndpoint, region, log }) {
    // Seeding 10,000 requests while the stack's stream consumers work through the first 1,000: DynamoDB
    // Local answers some batches in more than the handlers' 2.5 s.
    const doc = patientDocumentClient({ dynamodbEndpoint, region });
    try {
      const keys: Record<string, string> = {};
      for (const size of SIZES) {
        const dataspace = `bench-requests-${size}`;
        const users = ['ann', 'ben', 'cat', 'dan'].map((name) => `${name}-${size}`);
        for (const username of users) keys[username] = await createUserWithKey(doc, tableName, { username, dataspace });
        const store = new RequestStore(doc, tableName);
        const templateUuid = randomUUID();
        await store.saveTemplate(
          { uuid: templateUuid, dataspace, name: 'Package Review', description: '', contentType: 'product', isActive: true, questions: [] },
          undefined,
        );
        for (const label of PRIORITIES) await store.createPriority({ dataspace, label });
        const started = Date.now();
        await writeAll(doc, tableName, requestSeedItems(requests(dataspace, size, templateUuid, users)));
        log(`  seeded ${size} requests in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      }
      const firstPage = (size: number, query: string) => async () => {
        const response = await fetch(`${apiUrl}/api/v2/requests/${query}`, { headers: { Authorization: `Token ${keys[`ann-${size}`]}` } });
        const body = (await response.json()) as { results?: unknown[] };
        if (response.status !== 200 || body.results?.length !== 10) throw new Error(`${query} at ${size}: ${response.status}`);
      };
      const figures: BenchFigure[] = [];
      for (const query of QUERIES) {
        const medians = await timeInterleaved({ small: firstPage(1_000, query), large: firstPage(10_000, query) }, REPETITIONS, 5);
        const ratio = medians.large / medians.small;
        log(`  ${query}: 1,000 → ${medians.small.toFixed(2)} ms, 10,000 → ${medians.large.toFixed(2)} ms`);
        figures.push({
          scenario: this.name,
          figure: `page 1 ${query.slice(1)}: 10,000 / 1,000 requests`,
          value: ratio,
          target: '≤ 1.5',
          met: ratio <= 1.5,
          unit: 'ratio',
          note: `as a non-superuser; medians of ${REPETITIONS} interleaved runs: ${medians.large.toFixed(2)} ms at 10,000, ${medians.small.toFixed(2)} ms at 1,000`,
        });
      }
      return figures;
    } finally {
      doc.destroy();
    }
  },
};
