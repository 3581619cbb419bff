/**
 * The cost model: docs/cost.md, computed from the benchmark's consumed-capacity figures
 * (bench/results/latest.json, the "api capacity", "policy evaluation", "sbom import" and "advisories" scenarios) and
 * AWS's list prices, for three sizes of customer; and the next ceiling of each part of the service.
 *
 * `npm run cost` writes docs/cost.md; test/unit/cost-model.test.ts fails when the file is not what this
 * computes from the committed results (a new bench run, a price or a size changed without it).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchFigure } from './lib/results.ts';
import { FUNCTIONS } from '../shared/functions.ts';
import { EVENT_SOURCES } from '../shared/resources.ts';
import { IMPORT_LIMITS } from '../shared/domain/sbom-import.ts';
import { COUNTER_SHARDS } from '../shared/store/counters.ts';

/** AWS list prices, US East (N. Virginia), on-demand, in US dollars; what each is, and where it is published. */
export const PRICES = {
  dynamodbWriteUnit: { usd: 0.625 / 1e6, what: 'DynamoDB on-demand write request unit', source: 'https://aws.amazon.com/dynamodb/pricing/on-demand/' },
  dynamodbReadUnit: { usd: 0.125 / 1e6, what: 'DynamoDB on-demand read request unit', source: 'https://aws.amazon.com/dynamodb/pricing/on-demand/' },
  dynamodbStorageGbMonth: { usd: 0.25, what: 'DynamoDB Standard storage, GB-month', source: 'https://aws.amazon.com/dynamodb/pricing/on-demand/' },
  apiGatewayRequest: { usd: 3.5 / 1e6, what: 'API Gateway REST API request (first 333 million a month)', source: 'https://aws.amazon.com/api-gateway/pricing/' },
  lambdaRequest: { usd: 0.2 / 1e6, what: 'Lambda request', source: 'https://aws.amazon.com/lambda/pricing/' },
  lambdaGbSecondArm: { usd: 0.0000133334, what: 'Lambda duration, GB-second, Arm', source: 'https://aws.amazon.com/lambda/pricing/' },
  sqsRequest: { usd: 0.4 / 1e6, what: 'SQS standard queue request (64 KB chunk)', source: 'https://aws.amazon.com/sqs/pricing/' },
  eventBridgeEvent: { usd: 1 / 1e6, what: 'EventBridge custom event published (64 KB chunk)', source: 'https://aws.amazon.com/eventbridge/pricing/' },
} as const;

/** AWS quotas the ceilings are computed against (defaults; most can be raised on request). */
export const QUOTAS = {
  apiGatewayAccountRps: { value: 10_000, what: 'API Gateway requests a second, per account and region (soft)' },
  lambdaConcurrency: { value: 1_000, what: 'Lambda concurrent executions, per account and region (soft)' },
  dynamodbPartitionWrites: { value: 1_000, what: 'DynamoDB write units a second on one partition key (hard)' },
  eventBridgePutEventsRps: { value: 10_000, what: 'EventBridge PutEvents entries a second, us-east-1 (soft)' },
} as const;

/** What each size of customer does in a month. */
export interface Size {
  readonly name: string;
  readonly products: number;
  readonly packagesPerProduct: number;
  /** Distinct packages in the catalog. */
  readonly catalogPackages: number;
  readonly requestsPerMonth: number;
  readonly commentsPerRequest: number;
  readonly changesPerRequest: number;
  /** SBOM imports (a CI build each), and what share of their components is new to the product / to the catalog. */
  readonly importsPerMonth: number;
  readonly addedToProductShare: number;
  readonly newToCatalogShare: number;
  /** GETs of single objects and list pages. */
  readonly readsPerMonth: number;
  readonly webhookDeliveriesPerMonth: number;
  /** Busiest hour's share of a month's API calls, for the ceilings (a month of 22 working days of 8 hours: 1/176). */
  readonly peakHourShare: number;
  /**
   * The published advisories of the ecosystems it uses (OSV records held, deployment-wide), and how many
   * of them change a day (new, changed or withdrawn: what the daily sync loads and matches). Assumed, not
   * measured: the Go database's files carry no real `modified` dates to count changes from.
   */
  readonly advisoryEcosystems: string;
  readonly advisoryRecords: number;
  readonly advisoryChangesPerDay: number;
}

export const SIZES: readonly Size[] = [
  {
    name: 'Small team',
    products: 25,
    packagesPerProduct: 300,
    catalogPackages: 5_000,
    requestsPerMonth: 300,
    commentsPerRequest: 3,
    changesPerRequest: 2,
    importsPerMonth: 500,
    addedToProductShare: 0.05,
    newToCatalogShare: 0.01,
    readsPerMonth: 50_000,
    webhookDeliveriesPerMonth: 5_000,
    peakHourShare: 1 / 100,
    advisoryEcosystems: 'Go, PyPI',
    advisoryRecords: 10_000,
    advisoryChangesPerDay: 20,
  },
  {
    name: 'Mid-size company',
    products: 500,
    packagesPerProduct: 800,
    catalogPackages: 100_000,
    requestsPerMonth: 5_000,
    commentsPerRequest: 3,
    changesPerRequest: 2,
    importsPerMonth: 30_000,
    addedToProductShare: 0.05,
    newToCatalogShare: 0.01,
    readsPerMonth: 2_000_000,
    webhookDeliveriesPerMonth: 200_000,
    peakHourShare: 1 / 100,
    advisoryEcosystems: 'npm, PyPI, Maven, Go',
    advisoryRecords: 50_000,
    advisoryChangesPerDay: 100,
  },
  {
    name: 'Large enterprise',
    products: 5_000,
    packagesPerProduct: 1_500,
    catalogPackages: 1_000_000,
    requestsPerMonth: 50_000,
    commentsPerRequest: 3,
    changesPerRequest: 2,
    importsPerMonth: 500_000,
    addedToProductShare: 0.05,
    newToCatalogShare: 0.01,
    readsPerMonth: 30_000_000,
    webhookDeliveriesPerMonth: 5_000_000,
    peakHourShare: 1 / 100,
    advisoryEcosystems: 'every ecosystem matched',
    advisoryRecords: 200_000,
    advisoryChangesPerDay: 400,
  },
];

/** A per-operation cost, read from the bench's figures. */
interface Unit {
  readonly read: number;
  readonly write: number;
  /** The API call's median time on the local stack (an upper bound of its Lambda duration on AWS). */
  readonly ms: number;
}

export interface Inputs {
  readonly productGet: Unit;
  readonly productPage: Unit;
  readonly requestPage: Unit;
  readonly requestCreate: Unit;
  readonly comment: Unit;
  readonly requestChange: Unit;
  readonly delivery: Unit;
  readonly componentNew: Unit;
  readonly componentAdded: Unit;
  readonly componentUnchanged: Unit;
  readonly packageAdd: Unit;
  /** The evaluator's time per package of a product (ms). */
  readonly evaluationMsPerPackage: number;
  /** The evaluator's read units per package of a product (the large-product evaluation's, at the size it was measured). */
  readonly evaluationReadsPerPackage: number;
  /** The large-product evaluation's milliseconds per package, and its size. */
  readonly largeEvaluation: { readonly msPerPackage: number; readonly packages: number };
  /** The 1,000-component synchronous import's time (s). */
  readonly syncImportSeconds: number;
  /** Components of the SBOM the component figures were measured with. */
  readonly componentsPerImport: number;
  /** Published advisories, from the "advisories" scenario (the whole Go database loaded). */
  readonly advisory: {
    readonly writeUnitsPerRecord: number;
    readonly readUnitsPerRecord: number;
    readonly bytesPerRecord: number;
    readonly recordsPerSecond: number;
    /** The linker's units (reads and writes) for one changed record of a package in a 100,000-package dataspace. */
    readonly linkerUnitsPerChange: number;
  };
}

function find(figures: readonly BenchFigure[], scenario: string, figure: string): BenchFigure {
  const found = figures.find((f) => f.scenario === scenario && f.figure === figure);
  if (!found) throw new Error(`bench/results/latest.json has no "${scenario}" figure "${figure}": run npm run bench -- "${scenario}"`);
  return found;
}

function number(text: string | undefined, pattern: RegExp, what: string): number {
  const match = pattern.exec(text ?? '');
  if (!match) throw new Error(`Cannot read ${what} from the bench note: ${text}`);
  return Number(match[1]!.replace(/,/g, ''));
}

function unit(figures: readonly BenchFigure[], what: string): Unit {
  const read = find(figures, 'api capacity', `read units per ${what}`);
  const write = find(figures, 'api capacity', `write units per ${what}`);
  return { read: read.value, write: write.value, ms: number(read.note, /API call p50 (\d+) ms/, `the p50 of ${what}`) };
}

/** Read units a package of the large-product evaluation, at whatever size it was measured (`evaluation read units, N packages`). */
function largeEvaluationReadsPerPackage(figures: readonly BenchFigure[]): number {
  const found = figures.find((f) => f.scenario === 'policy large product' && /^evaluation read units, [\d,]+ packages$/.test(f.figure));
  if (!found) throw new Error('bench/results/latest.json has no "policy large product" figure "evaluation read units, N packages": run npm run bench -- "policy large product"');
  return found.value / number(found.figure, /([\d,]+) packages/, 'the large product\'s packages');
}

/** The large-product evaluation's time a package (`evaluation time ÷ the evaluator's timeout, N packages`, whose note gives the seconds). */
function largeEvaluationTime(figures: readonly BenchFigure[]): { msPerPackage: number; packages: number } {
  const found = figures.find((f) => f.scenario === 'policy large product' && /^evaluation time ÷ the evaluator's timeout, [\d,]+ packages$/.test(f.figure));
  if (!found) throw new Error('bench/results/latest.json has no "policy large product" evaluation time: run npm run bench -- "policy large product"');
  const packages = number(found.figure, /([\d,]+) packages/, 'the large product\'s packages');
  return { msPerPackage: (number(found.note, /^([\d.]+) s in this process/, 'the large evaluation\'s seconds') * 1000) / packages, packages };
}

function advisoryInputs(figures: readonly BenchFigure[]): Inputs['advisory'] {
  const linker = figures.find((f) => f.scenario === 'advisories' && /^one changed advisory, [\d,]+ packages: linker calls$/.test(f.figure) && number(f.figure, /([\d,]+) packages/, 'the dataspace\'s packages') >= 100_000);
  if (!linker) throw new Error('bench/results/latest.json has no "advisories" figure "one changed advisory, 100,000 packages: linker calls": run npm run bench -- advisories');
  return {
    writeUnitsPerRecord: find(figures, 'advisories', 'load: write units a record').value,
    readUnitsPerRecord: find(figures, 'advisories', 'load again: read units a record').value,
    bytesPerRecord: find(figures, 'advisories', 'load: stored bytes a record').value,
    recordsPerSecond: find(figures, 'advisories', 'load the Go database: records a second').value,
    linkerUnitsPerChange: number(linker.note, /^([\d.]+) capacity units/, 'the linker\'s units'),
  };
}

function advisoryUsd(month: ReturnType<typeof advisoryMonth>): number {
  return (
    month.writeUnits * PRICES.dynamodbWriteUnit.usd +
    month.readUnits * PRICES.dynamodbReadUnit.usd +
    (month.storedKb / GB) * PRICES.dynamodbStorageGbMonth.usd +
    month.invocations * PRICES.lambdaRequest.usd +
    month.syncGbSeconds * PRICES.lambdaGbSecondArm.usd +
    month.sqsRequests * PRICES.sqsRequest.usd
  );
}

/** The size of a record's entry on the counting index (keys.advisoryInEcosystem): its keys and DynamoDB's 100 bytes of index overhead. */
const COUNT_ENTRY_BYTES = 200;

/** A month of the advisory sync: the records changed, their loads and matching, in units, seconds and calls. */
function advisoryMonth(size: Size, inputs: Inputs) {
  const changes = size.advisoryChangesPerDay * 30;
  const a = inputs.advisory;
  return {
    changes,
    // The linker's units are reads and writes together: charged as writes, an upper bound.
    writeUnits: changes * (a.writeUnitsPerRecord + a.linkerUnitsPerChange),
    // The heads a load compares, and the day's count of the records held (a keys-only index entry of about 200 bytes
    // a record, index overhead included, read eventually consistent: half a unit a 4 KB).
    readUnits: changes * a.readUnitsPerRecord + 30 * Math.ceil((size.advisoryRecords * COUNT_ENTRY_BYTES) / 4096 / 2),
    storedKb: (size.advisoryRecords * a.bytesPerRecord) / 1024,
    syncGbSeconds: 30 * (size.advisoryChangesPerDay / a.recordsPerSecond) * (FUNCTIONS['advisory-sync'].memoryMb / 1024),
    invocations: 30 + changes,
    sqsRequests: changes * 3,
  };
}

export function inputsOf(figures: readonly BenchFigure[]): Inputs {
  const evaluation = find(figures, 'policy evaluation', 'one evaluation of a product with 2,000 packages / reading its data');
  return {
    productGet: unit(figures, 'GET of a product'),
    productPage: unit(figures, 'GET of page 1 of the products'),
    requestPage: unit(figures, 'GET of page 1 of the requests'),
    requestCreate: unit(figures, 'request created'),
    comment: unit(figures, 'comment added'),
    requestChange: unit(figures, 'request changed (PATCH status)'),
    delivery: unit(figures, 'webhook delivery'),
    componentNew: unit(figures, 'SBOM component new to the catalog'),
    componentAdded: unit(figures, 'SBOM component already in the catalog'),
    componentUnchanged: unit(figures, 'SBOM component re-imported unchanged'),
    packageAdd: unit(figures, 'package added to a product'),
    evaluationMsPerPackage: number(evaluation.note, /EvaluationService\.evaluate ([\d.]+) ms/, 'the evaluation time') / 2_000,
    evaluationReadsPerPackage: largeEvaluationReadsPerPackage(figures),
    largeEvaluation: largeEvaluationTime(figures),
    componentsPerImport: number(find(figures, 'api capacity', 'read units per SBOM component new to the catalog').note, /one import of (\d+) components/, 'the SBOM\'s components'),
    advisory: advisoryInputs(figures),
    syncImportSeconds: find(figures, 'sbom import', `POST load_sboms of ${IMPORT_LIMITS.syncComponents.toLocaleString('en-US')} new components (the synchronous limit)`).value,
  };
}

/** One line of a size's monthly bill. */
interface Line {
  readonly part: string;
  readonly usd: number;
  readonly how: string;
}

const GB = 1024 * 1024;
const money = (usd: number) => (usd >= 100 ? `$${Math.round(usd).toLocaleString('en-US')}` : `$${usd.toFixed(2)}`);
const count = (n: number) => Math.round(n).toLocaleString('en-US');
const units = (n: number) => (n >= 1e6 ? `${(n / 1e6).toLocaleString('en-US', { maximumFractionDigits: 1 })} M` : count(n));

/** A read's figure: half are GETs of single objects, half list pages (products and requests alike). */
function readMix(inputs: Inputs, figure: (unit: Unit) => number): number {
  return (figure(inputs.productGet) + (figure(inputs.productPage) + figure(inputs.requestPage)) / 2) / 2;
}

/** The API calls of a month: reads, request creates, comments and changes, SBOM imports. */
function apiCallsPerMonth(size: Size): number {
  return size.readsPerMonth + size.requestsPerMonth * (1 + size.commentsPerRequest + size.changesPerRequest) + size.importsPerMonth;
}

export function bill(size: Size, inputs: Inputs): Line[] {
  const comments = size.requestsPerMonth * size.commentsPerRequest;
  const changes = size.requestsPerMonth * size.changesPerRequest;
  const components = size.importsPerMonth * size.packagesPerProduct;
  const added = components * size.addedToProductShare;
  const fresh = components * size.newToCatalogShare;
  const unchanged = components - added;
  // Evaluations: one per import that changes its product (the share with an added component), each
  // reading every package of the product. (The component figures include the evaluation of their own
  // small product, counted again here at the product's size.)
  const evaluations = size.importsPerMonth * Math.min(1, size.addedToProductShare * size.packagesPerProduct);
  const read = { read: readMix(inputs, (u) => u.read), write: readMix(inputs, (u) => u.write) };
  const ops: { what: string; n: number; u: Pick<Unit, 'read' | 'write'> }[] = [
    { what: 'reads', n: size.readsPerMonth, u: read },
    { what: 'request creates', n: size.requestsPerMonth, u: inputs.requestCreate },
    { what: 'comments', n: comments, u: inputs.comment },
    { what: 'request changes', n: changes, u: inputs.requestChange },
    { what: 'components new to the catalog', n: fresh, u: { read: inputs.componentNew.read - inputs.componentAdded.read, write: inputs.componentNew.write - inputs.componentAdded.write } },
    { what: 'components added to a product', n: added, u: inputs.componentAdded },
    { what: 'components re-imported unchanged', n: unchanged, u: inputs.componentUnchanged },
    { what: 'webhook deliveries', n: size.webhookDeliveriesPerMonth, u: inputs.delivery },
    { what: 'evaluations', n: evaluations, u: { read: size.packagesPerProduct * inputs.evaluationReadsPerPackage, write: 0 } },
  ];
  const advisories = advisoryMonth(size, inputs);
  const writeUnits = ops.reduce((sum, op) => sum + op.n * Math.max(0, op.u.write), 0) + advisories.writeUnits;
  const readUnits = ops.reduce((sum, op) => sum + op.n * Math.max(0, op.u.read), 0) + advisories.readUnits;
  // Storage: an item written in a transaction costs 2 write units a KB, its index copies included:
  // half the units of an object's creation is an upper bound of the KB it keeps.
  const storedKb =
    (size.products * size.packagesPerProduct * inputs.componentAdded.write + size.catalogPackages * (inputs.componentNew.write - inputs.componentAdded.write) + size.requestsPerMonth * 12 * (inputs.requestCreate.write + size.commentsPerRequest * inputs.comment.write)) / 2 +
    advisories.storedKb;
  const apiCalls = apiCallsPerMonth(size);
  const apiGbSeconds =
    ((size.readsPerMonth * readMix(inputs, (u) => u.ms) + size.requestsPerMonth * inputs.requestCreate.ms + comments * inputs.comment.ms + changes * inputs.requestChange.ms) / 1000) * (FUNCTIONS.requests.memoryMb / 1024) +
    (size.importsPerMonth * (inputs.componentUnchanged.ms / 1000)) * (FUNCTIONS['sbom-imports'].memoryMb / 1024);
  const evaluatorGbSeconds = (evaluations * size.packagesPerProduct * inputs.evaluationMsPerPackage / 1000) * (FUNCTIONS.evaluator.memoryMb / 1024);
  const events = size.requestsPerMonth + comments + changes;
  const queues = EVENT_SOURCES.filter((source) => source.kind === 'queue').length;
  // Lambda's pollers keep 5 long polls (20 s) open on each queue: about 648,000 receives a queue a month.
  const pollingRequests = queues * 5 * ((30 * 24 * 3600) / 20);
  const sqsRequests = pollingRequests + evaluations * 3 + events * 3 + advisories.sqsRequests;
  return [
    { part: 'DynamoDB writes', usd: writeUnits * PRICES.dynamodbWriteUnit.usd, how: `${units(writeUnits)} write units` },
    { part: 'DynamoDB reads', usd: readUnits * PRICES.dynamodbReadUnit.usd, how: `${units(readUnits)} read units` },
    { part: 'DynamoDB storage', usd: (storedKb / GB) * PRICES.dynamodbStorageGbMonth.usd, how: `at most ${(storedKb / GB).toFixed(1)} GB, a year of requests` },
    { part: 'API Gateway', usd: apiCalls * PRICES.apiGatewayRequest.usd, how: `${units(apiCalls)} calls` },
    {
      part: 'Lambda',
      usd: (apiCalls + evaluations + events + advisories.invocations) * PRICES.lambdaRequest.usd + (apiGbSeconds + evaluatorGbSeconds + advisories.syncGbSeconds) * PRICES.lambdaGbSecondArm.usd,
      how: `${units(apiCalls + evaluations + events + advisories.invocations)} invocations, ${units(apiGbSeconds + evaluatorGbSeconds + advisories.syncGbSeconds)} GB-s (${count(evaluations)} evaluations)`,
    },
    { part: 'SQS', usd: sqsRequests * PRICES.sqsRequest.usd, how: `${units(sqsRequests)} requests (${units(pollingRequests)} of them the pollers' long polls on ${queues} queues)` },
    { part: 'EventBridge', usd: events * PRICES.eventBridgeEvent.usd, how: `${units(events)} events` },
  ];
}

/** The next limit each part meets, and the figure at which it does, for the largest size. */
export function ceilings(size: Size, inputs: Inputs): { part: string; limit: string; reachedAt: string }[] {
  const peakRps = (apiCallsPerMonth(size) * size.peakHourShare) / 3600;
  const apiMs = (inputs.productGet.ms + inputs.requestCreate.ms) / 2;
  const evaluatorSeconds = FUNCTIONS.evaluator.timeoutSeconds / 2;
  return [
    {
      part: 'API Gateway',
      limit: `${QUOTAS.apiGatewayAccountRps.what}: ${count(QUOTAS.apiGatewayAccountRps.value)}`,
      reachedAt: `${count(QUOTAS.apiGatewayAccountRps.value / peakRps)} times the ${size.name.toLowerCase()}'s busiest hour (${peakRps.toFixed(1)} calls/s)`,
    },
    {
      part: 'Lambda (API)',
      limit: `${QUOTAS.lambdaConcurrency.what}: ${count(QUOTAS.lambdaConcurrency.value)}`,
      reachedAt: `${count(QUOTAS.lambdaConcurrency.value / (apiMs / 1000))} calls/s at the measured ${apiMs.toFixed(0)} ms a call (local; shorter on AWS)`,
    },
    {
      part: 'SBOM import within the call',
      limit: `${count(IMPORT_LIMITS.syncComponents)} components (API Gateway's 29 s)`,
      reachedAt: `${count(IMPORT_LIMITS.syncComponents)} new components took ${inputs.syncImportSeconds.toFixed(1)} s; larger documents go through sbom_uploads`,
    },
    {
      part: 'SBOM import from an upload',
      limit: `${count(IMPORT_LIMITS.uploadComponents)} components a document`,
      reachedAt: `a product of more than ${count(IMPORT_LIMITS.uploadComponents)} packages is loaded in several merge imports, each reading only the product packages its document names (the cost per package of a merge into 49,000 is that of one into an empty product: sbom merge at scale)`,
    },
    {
      part: 'Evaluation',
      limit: `one product's evaluation runs within one invocation of ${FUNCTIONS.evaluator.timeoutSeconds} s, which starts no product after ${evaluatorSeconds} s`,
      reachedAt: `about ${count((FUNCTIONS.evaluator.timeoutSeconds * 1000) / inputs.largeEvaluation.msPerPackage)} packages in one product at the ${inputs.largeEvaluation.msPerPackage.toFixed(2)} ms a package measured for a ${count(inputs.largeEvaluation.packages)}-package product (on DynamoDB Local: shorter on AWS)`,
    },
    {
      part: 'DynamoDB list counters',
      limit: `${QUOTAS.dynamodbPartitionWrites.what}: ${count(QUOTAS.dynamodbPartitionWrites.value)}, ${COUNTER_SHARDS} shards a counter`,
      reachedAt: `${count(QUOTAS.dynamodbPartitionWrites.value * COUNTER_SHARDS)} creates a second in one dataspace`,
    },
    {
      part: 'EventBridge',
      limit: `${QUOTAS.eventBridgePutEventsRps.what}: ${count(QUOTAS.eventBridgePutEventsRps.value)}`,
      reachedAt: `${count(QUOTAS.eventBridgePutEventsRps.value)} request writes a second across the account`,
    },
  ];
}

export function renderCostModel(figures: readonly BenchFigure[]): string {
  const inputs = inputsOf(figures);
  const lines: string[] = [
    '# What the service costs to run',
    '',
    'Generated by `npm run cost` (bench/cost-model.ts) from the benchmark\'s figures in',
    '[bench/results/latest.json](../bench/results/latest.json) and the AWS list prices below; do not edit by hand',
    '(test/unit/cost-model.test.ts fails when this file is not what the script computes).',
    '',
    '## What one call costs the table',
    '',
    'Measured by the benchmark\'s "api capacity" scenario: every DynamoDB call the local stack makes for one API call,',
    'the pipeline\'s work it sets off included (the stream router, the product\'s evaluation, the outbox publisher, the',
    'webhook fan-out), with the deployment\'s rate limits on. DynamoDB Local reports consumed capacity, but reports a',
    'TransactWriteItems call as if it had written one item, and charges nothing for a BatchGetItem key that finds no',
    'item: the benchmark\'s proxy (bench/lib/capacity-proxy.ts) computes transactions from their items by DynamoDB\'s rules',
    '(2 units a KB of each item, a standard write of each index copy) and charges missing keys as DynamoDB does. These',
    'are estimates of the bill, not the bill. The time is the API call\'s median on the local stack: for a component,',
    `the whole import's (${inputs.componentsPerImport} components); for a delivery, the request create it follows.`,
    '',
    '| Operation | Read units | Write units | API call p50 (local) |',
    '| --- | ---: | ---: | ---: |',
  ];
  const rows: [string, Unit][] = [
    ['GET of a product', inputs.productGet],
    ['GET of page 1 of the products', inputs.productPage],
    ['GET of page 1 of the requests', inputs.requestPage],
    ['request created', inputs.requestCreate],
    ['comment added', inputs.comment],
    ['request changed', inputs.requestChange],
    ['webhook delivery', inputs.delivery],
    ['SBOM component new to the catalog', inputs.componentNew],
    ['SBOM component already in the catalog, new to the product', inputs.componentAdded],
    ['SBOM component re-imported unchanged', inputs.componentUnchanged],
    ['package added to a product (with its evaluation)', inputs.packageAdd],
  ];
  for (const [what, u] of rows) lines.push(`| ${what} | ${u.read} | ${u.write} | ${u.ms} ms |`);
  lines.push('', '## Three sizes', '', '| | ' + SIZES.map((s) => s.name).join(' | ') + ' |', '| --- |' + SIZES.map(() => ' ---: |').join(''));
  const row = (label: string, f: (s: Size) => string) => lines.push(`| ${label} | ${SIZES.map(f).join(' | ')} |`);
  row('Products', (s) => count(s.products));
  row('Packages a product', (s) => count(s.packagesPerProduct));
  row('Packages in the catalog', (s) => count(s.catalogPackages));
  row('Requests a month (comments, changes each)', (s) => `${count(s.requestsPerMonth)} (${s.commentsPerRequest}, ${s.changesPerRequest})`);
  row('SBOM imports a month', (s) => count(s.importsPerMonth));
  row('Components new to the product, to the catalog', (s) => `${s.addedToProductShare * 100}%, ${s.newToCatalogShare * 100}%`);
  row('Reads (GETs) a month', (s) => count(s.readsPerMonth));
  row('Webhook deliveries a month', (s) => count(s.webhookDeliveriesPerMonth));
  row('Published advisories held, changed a day (assumed)', (s) => `${count(s.advisoryRecords)}, ${count(s.advisoryChangesPerDay)} (${s.advisoryEcosystems})`);
  const bills = SIZES.map((s) => bill(s, inputs));
  for (const [i, line] of bills[0]!.entries()) row(`**${line.part}**`, (s) => `${money(bills[SIZES.indexOf(s)]![i]!.usd)} (${bills[SIZES.indexOf(s)]![i]!.how})`);
  row('**Total a month**', (s) => `**${money(bills[SIZES.indexOf(s)]!.reduce((sum, line) => sum + line.usd, 0))}**`);
  row('of which the published advisories (store and daily sync)', (s) => money(advisoryUsd(advisoryMonth(s, inputs))));
  row('First load of the published advisories (once)', (s) => {
    const a = inputs.advisory;
    const seconds = s.advisoryRecords / a.recordsPerSecond;
    const usd = s.advisoryRecords * a.writeUnitsPerRecord * PRICES.dynamodbWriteUnit.usd + seconds * (FUNCTIONS['advisory-sync'].memoryMb / 1024) * PRICES.lambdaGbSecondArm.usd;
    return `${money(usd)} (${units(s.advisoryRecords * a.writeUnitsPerRecord)} write units; ${Math.ceil(seconds / 60)} min at the ${Math.round(a.recordsPerSecond)} records/s of DynamoDB Local beside a test suite)`;
  });
  lines.push(
    '',
    'Not counted: CloudWatch logs, metrics and alarms, X-Ray traces, S3 for uploaded documents (kept a day), data',
    'transfer, and the free tiers. An SBOM import that changes nothing writes only its import record and the caller\'s',
    `rate-limit state (${inputs.componentUnchanged.write} write units a component of the ${inputs.componentsPerImport}-component import here) and asks for no evaluation.`,
    '',
    'Published advisories (OSV records, once per deployment) are measured by the "advisories" scenario on the whole Go',
    `database (4,291 real records): ${inputs.advisory.writeUnitsPerRecord.toFixed(1)} write units and ${Math.round(inputs.advisory.bytesPerRecord).toLocaleString('en-US')} bytes a record with its package items, ${inputs.advisory.readUnitsPerRecord.toFixed(2)} read units a record`,
    `to compare a load with what is stored, and ${inputs.advisory.linkerUnitsPerChange.toFixed(1)} units (reads and writes, charged as writes) to match one changed record against a`,
    'package of a 100,000-package dataspace, the same as in a 1,000-package one: matching reads the packages a record names,',
    'not the catalog. The products a changed link re-evaluates are the evaluations above. The sync runs once a day for the',
    'changes of the day, and counts the records held once a run; its download from OSV\'s bucket is not counted (data',
    'transfer in is free). The first run loads each ecosystem\'s whole archive within one invocation of the sync',
    `function (${FUNCTIONS['advisory-sync'].timeoutSeconds} s): at the local rate above that is ${count(FUNCTIONS['advisory-sync'].timeoutSeconds * inputs.advisory.recordsPerSecond)} records; a larger archive on a table as slow would need`,
    'the admin load (`npm run admin -- vulnerabilities load <Ecosystem>/all.zip` against the deployed table) first.',
    '',
    '## Prices',
    '',
    '| Price | US dollars | Source |',
    '| --- | ---: | --- |',
    ...Object.values(PRICES).map((p) => `| ${p.what} | ${p.usd < 0.001 ? `${+(p.usd * 1e6).toPrecision(6)} a million` : p.usd} | ${p.source} |`),
    '',
    `## The next ceilings (for the ${SIZES.at(-1)!.name.toLowerCase()})`,
    '',
    '| Part | Limit | Reached at |',
    '| --- | --- | --- |',
    ...ceilings(SIZES.at(-1)!, inputs).map((c) => `| ${c.part} | ${c.limit} | ${c.reachedAt} |`),
    '',
  );
  return lines.join('\n');
}

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
export const COST_DOC = resolve(ROOT, 'docs/cost.md');
export const RESULTS = resolve(ROOT, 'bench/results/latest.json');

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  writeFileSync(COST_DOC, renderCostModel(JSON.parse(readFileSync(RESULTS, 'utf8')) as BenchFigure[]));
  console.log(`Wrote ${COST_DOC}`);
}
