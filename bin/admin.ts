/**
 * The admin CLI: `npm run admin -- <command>`. Talks to the local stack of DATA_DIR (default .data)
 * while `npm start` runs, or to a deployed table when TABLE_NAME (and AWS_REGION, credentials) are set.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createDocumentClient, createDynamoControlClient } from '../shared/aws/clients.ts';
import { randomUUID } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { IdentityStore } from '../shared/store/identity-store.ts';
import { RequestStore } from '../shared/store/request-store.ts';
import { CatalogStore } from '../shared/store/catalog-store.ts';
import { ProductPackageStore } from '../shared/store/product-package-store.ts';
import { PolicyStore } from '../shared/store/policy-store.ts';
import type { LoadTarget } from '../shared/admin/load-file.ts';
import { applyLoadFile, validateLoadFile } from '../shared/admin/load-file.ts';
import { generateApiKey } from '../shared/auth/api-key.ts';
import { DEFAULT_DATA_DIR, readRunningStack } from './local/stack-file.ts';
import { ensureTable } from './local/table-setup.ts';
import { NAME_PATTERN } from '../shared/domain/identity.ts';
import { migrateData } from '../shared/store/migrations.ts';
import { AdvisoryStore } from '../shared/store/advisory-store.ts';
import { AdvisoryLoader, loadSummary } from '../shared/services/advisory-load.ts';
import { osvInputsAt, OsvSourceError, type OsvSourceSummary } from '../shared/admin/osv-files.ts';

const USAGE = `Usage: npm run admin -- <command> [options]

Commands:
  load FILE                      Validate FILE whole, then create or update what it lists (idempotent).
  create-user --username U --email E --dataspace D [--superuser] [--group G ...]
                                 Create a user and print their new API key.
  create-api-key USERNAME        Print a new API key for USERNAME (a write key named "default"),
                                 replacing every key USERNAME holds at once.
  deactivate-user USERNAME       Stop USERNAME's key from working (activate-user undoes it).
  activate-user USERNAME
  list-users [--dataspace D]     List users (of one dataspace, or of all).
  migrate                        Bring items an earlier version wrote to this version's layout
                                 (idempotent; npm start and a deployment run it themselves).
  vulnerabilities load PATH      Load published advisories (OSV records) from PATH: a JSON file, a
                                 folder of them (recursively) or an ecosystem's zip as OSV distributes
                                 it (<Ecosystem>/all.zip). Idempotent: what is stored already is not
                                 written again. Prints what it did and every record it refused.

Target: the local stack of DATA_DIR (default .data) started by \`npm start\`, or, when TABLE_NAME
is set, that DynamoDB table on AWS (AWS_REGION and the usual AWS credentials).`;

class UsageError extends Error {}

interface Connection {
  readonly doc: DynamoDBDocumentClient;
  readonly tableName: string;
  readonly store: IdentityStore;
  readonly load: LoadTarget;
  readonly target: string;
}

function connection(doc: DynamoDBDocumentClient, tableName: string, target: string): Connection {
  const store = new IdentityStore(doc, tableName);
  const load: LoadTarget = {
    identity: store,
    requests: new RequestStore(doc, tableName),
    catalog: new CatalogStore(doc, tableName),
    productPackages: new ProductPackageStore(doc, tableName),
    policy: new PolicyStore(doc, tableName),
  };
  return { doc, tableName, store, load, target };
}

const loadOptions = () => ({ now: new Date(), generateKey: generateApiKey, newUuid: randomUUID });

/**
 * The CLI's calls are batch work, not an API request's: they get the long timeouts and retries of set-up
 * code (a 25-record BatchWriteItem of advisories took past the API's 2.5 s on a loaded machine).
 */
async function connect(): Promise<Connection> {
  const region = process.env.AWS_REGION ?? 'us-east-1';
  const tableName = process.env.TABLE_NAME;
  if (tableName && !process.env.DYNAMODB_ENDPOINT) {
    const doc = createDocumentClient(createDynamoControlClient({ region }));
    return connection(doc, tableName, `table ${tableName} in ${region}`);
  }
  if (tableName && process.env.DYNAMODB_ENDPOINT) {
    // A DynamoDB (Local) of one's own: the table is made ready the same way npm start and the tests do.
    await ensureTable({ region, endpoint: process.env.DYNAMODB_ENDPOINT }, tableName);
    const doc = createDocumentClient(createDynamoControlClient({ region, endpoint: process.env.DYNAMODB_ENDPOINT }));
    return connection(doc, tableName, `table ${tableName} at ${process.env.DYNAMODB_ENDPOINT}`);
  }
  const dataDir = process.env.DATA_DIR ?? DEFAULT_DATA_DIR;
  const stack = readRunningStack(dataDir);
  if (!stack) {
    throw new UsageError(
      `No local stack is running for DATA_DIR=${dataDir}: \`npm start\` records itself in ${join(dataDir, 'stack.json')} ` +
        'once it prints "Compliance API ready" (if it is starting, wait for that line; if it runs with another ' +
        'DATA_DIR, give the same DATA_DIR here). Or set TABLE_NAME (and AWS_REGION) to work on a deployed table.',
    );
  }
  // The stack made its table ready before it wrote its stack file: this only waits for ACTIVE.
  await ensureTable({ region: stack.region, endpoint: stack.dynamodbEndpoint }, stack.tableName);
  const doc = createDocumentClient(createDynamoControlClient({ region: stack.region, endpoint: stack.dynamodbEndpoint }));
  return connection(doc, stack.tableName, `local stack ${stack.apiUrl}`);
}

async function load(args: string[]): Promise<void> {
  const [file] = args;
  if (!file) throw new UsageError('load needs a FILE');
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new UsageError(`Cannot read ${file} as JSON: ${(error as Error).message}`);
  }
  const connected = await connect();
  const validation = await validateLoadFile(raw, connected.load);
  if (!validation.ok) {
    console.error(`${file} is not valid; nothing was written:`);
    for (const problem of validation.problems) console.error(`  ${problem}`);
    process.exitCode = 1;
    return;
  }
  const report = await applyLoadFile(validation.file, connected.load, loadOptions());
  const created = Object.entries(report.created).map(([kind, count]) => `${count} ${kind.replaceAll('_', ' ')}`);
  console.log(
    `Loaded ${file} into ${connected.target}. Created: ${created.join(', ')}. ` +
      `Updated: ${report.updatedUsers} users, ${report.updatedTemplates} request templates, ${report.updatedCatalog} catalog objects.`,
  );
  for (const { username, apiKey } of report.generatedKeys) {
    console.log(`API key for ${username} (shown once): ${apiKey}`);
  }
}

async function createUser(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      username: { type: 'string' },
      email: { type: 'string' },
      dataspace: { type: 'string' },
      superuser: { type: 'boolean', default: false },
      group: { type: 'string', multiple: true, default: [] },
    },
  });
  if (!values.username || !values.email || !values.dataspace) {
    throw new UsageError('create-user needs --username, --email and --dataspace');
  }
  const connected = await connect();
  const { store } = connected;
  if (await store.getUser(values.username)) throw new UsageError(`User "${values.username}" already exists`);
  const file = {
    users: [
      {
        username: values.username,
        email: values.email,
        dataspace: values.dataspace,
        is_superuser: values.superuser,
        groups: values.group,
      },
    ],
  };
  const target = connected.load;
  const validation = await validateLoadFile(file, target);
  if (!validation.ok) throw new UsageError(validation.problems.map((p) => p.replace('$.users[0].', '--')).join('\n'));
  const report = await applyLoadFile(validation.file, target, loadOptions());
  console.log(`Created user ${values.username} in dataspace ${values.dataspace}.`);
  for (const { apiKey } of report.generatedKeys) console.log(`API key (shown once): ${apiKey}`);
}

async function createApiKey(args: string[]): Promise<void> {
  const [username] = args;
  if (!username) throw new UsageError('create-api-key needs a USERNAME');
  const { store } = await connect();
  if (!(await store.getUser(username))) throw new UsageError(`User "${username}" does not exist`);
  const apiKey = generateApiKey();
  await store.replaceApiKey(username, apiKey, new Date());
  console.log(`New API key for ${username} (shown once; the old key no longer works): ${apiKey}`);
}

async function setActive(args: string[], isActive: boolean): Promise<void> {
  const [username] = args;
  if (!username) throw new UsageError(`${isActive ? 'activate' : 'deactivate'}-user needs a USERNAME`);
  const { store } = await connect();
  const user = await store.getUser(username);
  if (!user) throw new UsageError(`User "${username}" does not exist`);
  if (user.isActive !== isActive) await store.saveUser({ ...user, isActive }, user, new Date());
  console.log(`User ${username} is ${isActive ? 'active' : 'inactive'}.`);
}

async function listUsers(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { dataspace: { type: 'string' } } });
  const { store } = await connect();
  if (values.dataspace !== undefined && !NAME_PATTERN.test(values.dataspace)) {
    throw new UsageError(`"${values.dataspace}" is not a dataspace name`);
  }
  const dataspaces = values.dataspace ? [values.dataspace] : (await store.listDataspaces()).map((d) => d.name);
  const rows: string[][] = [['USERNAME', 'EMAIL', 'DATASPACE', 'SUPERUSER', 'ACTIVE', 'GROUPS', 'API KEY']];
  for (const dataspace of dataspaces) {
    for (const user of await store.listUsers(dataspace)) {
      rows.push([
        user.username,
        user.email,
        user.dataspace,
        user.isSuperuser ? 'yes' : 'no',
        user.isActive ? 'yes' : 'no',
        user.groups.join(',') || '-',
        (await store.apiKeyCount(user.username)) > 0 ? 'set' : 'none',
      ]);
    }
  }
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  for (const row of rows) console.log(row.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd());
}

async function migrate(args: string[]): Promise<void> {
  if (args.length > 0) throw new UsageError('migrate takes no arguments');
  const connected = await connect();
  const report = await migrateData(connected.doc, connected.tableName);
  console.log(
    `Migrated ${connected.target}: ${report.requestCountersFolded} request counter items folded into their groups, ` +
      `${report.catalogLookupsWritten} catalog lookup entries written, ${report.apiKeysNamed} API keys named, ` +
      `${report.advisoryKeysWritten} packages given their advisory key, ${report.packagesReresolved} packages with unknown licenses resolved again.`,
  );
}

/** At most this many refused records are listed one by one; the rest are counted. */
const REFUSALS_LISTED = 50;

async function vulnerabilities(args: string[]): Promise<void> {
  const [subcommand, path, ...rest] = args;
  if (subcommand !== 'load' || !path || rest.length > 0) throw new UsageError('Usage: npm run admin -- vulnerabilities load PATH');
  const connected = await connect();
  const advisories = new AdvisoryStore(connected.doc, connected.tableName);
  const summary: OsvSourceSummary = { jsonFiles: 0, skipped: 0 };
  let report;
  try {
    report = await new AdvisoryLoader({ advisories, now: () => new Date() }).load(osvInputsAt(path, summary));
  } catch (error) {
    if (error instanceof OsvSourceError) throw new UsageError(error.message);
    throw error;
  }
  const taken = report.new + report.changed + report.unchanged + report.withdrawn + report.older;
  for (const refused of report.refused.slice(0, REFUSALS_LISTED)) {
    console.error(`Refused ${refused.id ?? refused.source} (${refused.source}): ${refused.problems.join('; ')}`);
  }
  if (report.refused.length > REFUSALS_LISTED) console.error(`... and ${report.refused.length - REFUSALS_LISTED} more refused.`);
  if (taken === 0) {
    throw new UsageError(
      summary.jsonFiles === 0
        ? `${path} holds no OSV record: no JSON file in it${summary.skipped > 0 ? ` (${summary.skipped} other files skipped)` : ''}.`
        : `${path} holds no OSV record that could be loaded: ${report.refused.length} refused, nothing written.`,
    );
  }
  await advisories.noteLoaded(report.ecosystems, new Date());
  const held = (await advisories.sources()).filter((source) => report.ecosystems.includes(source.ecosystem));
  console.log(`Loaded ${path} into ${connected.target}: ${loadSummary(report)}.`);
  console.log(`Held now: ${held.map((source) => `${source.ecosystem} ${source.records ?? 0} records`).join(', ')}.`);
}

const COMMANDS: Record<string, (args: string[]) => Promise<void>> = {
  load,
  'create-user': createUser,
  'create-api-key': createApiKey,
  'deactivate-user': (args) => setActive(args, false),
  'activate-user': (args) => setActive(args, true),
  'list-users': listUsers,
  migrate,
  vulnerabilities,
};

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (!command || command === 'help' || command === '--help') {
    console.log(USAGE);
    return;
  }
  const run = COMMANDS[command];
  if (!run) throw new UsageError(`Unknown command "${command}"\n\n${USAGE}`);
  await run(rest);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error instanceof UsageError ? error.message : error);
  process.exitCode = error instanceof UsageError ? 2 : 1;
});
