/**
 * Policy rules speed, a burst: 1,000 changes in a row through the real pipeline of the local stack
 * (table stream → stream-router → evaluation queue with its delay → evaluator → outbox → bus).
 * license_coverage_gap is configured through the API, a product created through the API, and 1,000
 * packages (seeded in the catalog beforehand, without license expression) added to it one after
 * another with POST /api/v2/product_packages/. Then: how many evaluations committed (the
 * PolicyState item's version counts them), how long after the last change the pipeline went quiet
 * with the right violation (1,000 packages, no commit for 3 s), and how many
 * policy.violation_detected events were published for the product (exactly one is right).
 */
import { randomUUID } from 'node:crypto';
import { GetCommand, ScanCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Scenario } from '../lib/scenario.ts';
import { benchDocumentClient, createUserWithKey, writeAll } from '../lib/seed.ts';
import { keys } from '../../shared/keys.ts';
import { VIOLATION_DETECTED, VIOLATION_RESOLVED } from '../../shared/events/policy-events.ts';
import { InProcessEventBus, type DeliveredEvent } from '../../bin/local/event-bus.ts';
import { CATALOG_SPECS, catalogSeedItems } from '../../shared/store/catalog-store.ts';
import { benchPackage, pollUntil } from './policy-seed.ts';

const DATASPACE = 'bench-policy-burst';
const CHANGES = 1_000;
const QUIET_MS = 3_000;
const MAX_EVALUATIONS = 50;

interface PolicyState {
  readonly version: number;
  readonly evaluatedAt: string | null;
}

async function policyState(doc: DynamoDBDocumentClient, tableName: string, productUuid: string): Promise<PolicyState> {
  const item = (await doc.send(new GetCommand({ TableName: tableName, Key: keys.policyState(productUuid), ConsistentRead: true }))).Item;
  return { version: Number(item?.version ?? 0), evaluatedAt: (item?.evaluatedAt as string | undefined) ?? null };
}

/** The outbox items (events committed by evaluations) of one type for the product: a bench may scan. */
async function outboxEvents(doc: DynamoDBDocumentClient, tableName: string, eventType: string, productUuid: string): Promise<number> {
  let count = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await doc.send(
      new ScanCommand({
        TableName: tableName,
        FilterExpression: '#entity = :entity AND #eventType = :type AND #envelope.#data.#product.#uuid = :product',
        ExpressionAttributeNames: {
          '#entity': 'entity',
          '#eventType': 'eventType',
          '#envelope': 'envelope',
          '#data': 'data',
          '#product': 'product',
          '#uuid': 'uuid',
        },
        ExpressionAttributeValues: { ':entity': 'OutboxEvent', ':type': eventType, ':product': productUuid },
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    );
    count += page.Count ?? 0;
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return count;
}

export const policyBurst: Scenario = {
  name: 'policy burst',
  async run({ apiUrl, tableName, dynamodbEndpoint, region, bus, log }) {
    const doc = benchDocumentClient({ dynamodbEndpoint, region });
    try {
      const apiKey = await createUserWithKey(doc, tableName, { username: 'bench-policy-burst-root', dataspace: DATASPACE, isSuperuser: true });
      const api = async (method: string, path: string, body?: unknown, expected = 200): Promise<Record<string, unknown>> => {
        const response = await fetch(`${apiUrl}${path}`, {
          method,
          headers: { Authorization: `Token ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        const text = await response.text();
        if (response.status !== expected) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 500)}`);
        return text ? (JSON.parse(text) as Record<string, unknown>) : {};
      };

      // Every event the bus delivers for the product (the in-process bus of the stack in this process).
      const publisher = bus;
      const delivered: DeliveredEvent[] = [];
      if (publisher instanceof InProcessEventBus) {
        publisher.addRule({
          name: 'bench-policy-burst',
          pattern: { 'detail-type': [VIOLATION_DETECTED, VIOLATION_RESOLVED] },
          target: async (event) => {
            delivered.push(event);
          },
        });
      } else {
        log('the stack\'s event bus is not reachable from the bench: counting outbox items instead');
      }

      await api('PUT', '/api/v2/policy_rules/', { license_coverage_gap: { is_active: true, threshold: 0 } });
      const packageUuids = Array.from({ length: CHANGES }, () => randomUUID());
      await writeAll(
        doc,
        tableName,
        packageUuids.flatMap((uuid, i) => catalogSeedItems(CATALOG_SPECS.packages, benchPackage({ uuid, dataspace: DATASPACE, name: `bench-burst-${String(i).padStart(4, '0')}` }))),
      );
      const product = await api('POST', '/api/v2/products/', { name: 'Policy burst bench', version: '1.0' }, 201);
      const productUuid = String(product.uuid);

      // The product's creation is evaluated first (no package, no violation): wait for it, so the
      // burst's evaluations are counted alone.
      const before = await pollUntil(
        "the product's first evaluation",
        async () => {
          const state = await policyState(doc, tableName, productUuid);
          return state.version > 0 ? state : undefined;
        },
        60_000,
      );
      await new Promise((resolveWait) => setTimeout(resolveWait, 1_500));
      const versionBefore = (await policyState(doc, tableName, productUuid)).version;
      log(`product created and evaluated (version ${before.version}, ${versionBefore} after 1.5 s); adding ${CHANGES} packages one by one`);

      const burstStart = performance.now();
      for (const [i, packageUuid] of packageUuids.entries()) {
        await api('POST', '/api/v2/product_packages/', { product: productUuid, package: packageUuid }, 201);
        if ((i + 1) % 250 === 0) {
          const state = await policyState(doc, tableName, productUuid);
          log(`  ${i + 1} added in ${((performance.now() - burstStart) / 1000).toFixed(1)} s; evaluations so far: ${state.version - versionBefore}`);
        }
      }
      const lastChange = performance.now();
      const burstSeconds = (lastChange - burstStart) / 1000;
      const versionAtLastChange = (await policyState(doc, tableName, productUuid)).version;

      // Quiet: the violation counts all 1,000 packages and no evaluation committed for QUIET_MS.
      let seen = { version: -1, at: performance.now() };
      let lastCount: number | undefined;
      const quiet = await pollUntil(
        'the pipeline to settle on 1,000 packages in violation',
        async () => {
          const violations = (await api('GET', `/api/v2/products/${productUuid}/policy_violations/`)) as unknown as {
            rule_type: string;
            violation_count: number;
          }[];
          lastCount = violations.find((violation) => violation.rule_type === 'license_coverage_gap')?.violation_count;
          const state = await policyState(doc, tableName, productUuid);
          const now = performance.now();
          if (state.version !== seen.version) seen = { version: state.version, at: now };
          return lastCount === CHANGES && now - seen.at >= QUIET_MS ? { ...seen, state } : undefined;
        },
        180_000,
        200,
      ).catch((error: unknown) => {
        throw new Error(`${String(error)} (last license_coverage_gap count: ${lastCount}, version ${seen.version})`);
      });
      const secondsUntilQuiet = Math.max(0, (quiet.at - lastChange) / 1000);
      const evaluations = quiet.version - versionBefore;
      log(
        `quiet ${secondsUntilQuiet.toFixed(1)} s after the last change; ${evaluations} evaluation(s) for ${CHANGES} changes ` +
          `(${versionAtLastChange - versionBefore} during the ${burstSeconds.toFixed(1)} s burst)`,
      );

      // The outbox publisher runs behind the evaluator: let it deliver what was committed.
      const [detectedItems, resolvedItems] = await Promise.all([
        outboxEvents(doc, tableName, VIOLATION_DETECTED, productUuid),
        outboxEvents(doc, tableName, VIOLATION_RESOLVED, productUuid),
      ]);
      const ofProduct = (type: string) =>
        delivered.filter((event) => event['detail-type'] === type && (event.detail.data as { product?: { uuid?: string } } | undefined)?.product?.uuid === productUuid);
      let detectedOnBus = 0;
      let resolvedOnBus = 0;
      if (publisher instanceof InProcessEventBus) {
        await pollUntil(
          'the outbox events to reach the bus',
          async () => (ofProduct(VIOLATION_DETECTED).length >= detectedItems && ofProduct(VIOLATION_RESOLVED).length >= resolvedItems ? true : undefined),
          30_000,
        ).catch(() => log('not every outbox event of the product reached the bus within 30 s'));
        detectedOnBus = ofProduct(VIOLATION_DETECTED).length;
        resolvedOnBus = ofProduct(VIOLATION_RESOLVED).length;
      }
      const detected = publisher instanceof InProcessEventBus ? detectedOnBus : detectedItems;
      const source = publisher instanceof InProcessEventBus ? 'delivered by the bus' : 'outbox items';
      log(
        `policy.violation_detected: ${detectedOnBus} on the bus, ${detectedItems} outbox item(s); ` +
          `policy.violation_resolved: ${resolvedOnBus} on the bus, ${resolvedItems} outbox item(s)`,
      );

      const delay = process.env.EVALUATION_DELAY_SECONDS ?? '1';
      return [
        {
          scenario: this.name,
          figure: `evaluations per ${CHANGES.toLocaleString('en-US')} package additions`,
          value: evaluations,
          target: 'few (< 50)',
          met: evaluations < MAX_EVALUATIONS,
          note:
            `commits of the product's evaluation (PolicyState version ${versionBefore} → ${quiet.version}) while ${CHANGES} packages were ` +
            `added one by one through POST /api/v2/product_packages/ in ${burstSeconds.toFixed(1)} s ` +
            `(${(CHANGES / burstSeconds).toFixed(0)}/s), until quiet; ${versionAtLastChange - versionBefore} of them during the burst; ` +
            `EVALUATION_DELAY_SECONDS=${delay}`,
        },
        {
          scenario: this.name,
          figure: 'time from the last change until quiet',
          value: secondsUntilQuiet,
          unit: 's',
          target: 'reference',
          met: true,
          note:
            `from the last POST's answer to the first poll (every 200 ms) that saw the final evaluation, with ` +
            `license_coverage_gap at ${CHANGES} packages; quiet confirmed by ${QUIET_MS / 1000} s without a commit`,
        },
        {
          scenario: this.name,
          figure: 'policy.violation_detected events for the product',
          value: detected,
          target: 'exactly 1',
          met: detected === 1,
          note: `${source}; outbox items: ${detectedItems} detected, ${resolvedItems} resolved; on the bus: ${detectedOnBus} detected, ${resolvedOnBus} resolved`,
        },
      ];
    } finally {
      doc.destroy();
    }
  },
};
