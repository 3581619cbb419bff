import { startDynamoDbLocal } from '/work/main/bin/local/dynamodb-local.ts';
import { freePort } from '/work/main/bin/local/ports.ts';
import { DynamoDBClient, CreateTableCommand, BatchWriteItemCommand, TransactWriteItemsCommand, DeleteTableCommand } from '@aws-sdk/client-dynamodb';
const dir = '/tmp/ddbexp/big-' + Date.now();
const dl = await startDynamoDbLocal({ port: await freePort(), dataDir: dir });
const c = new DynamoDBClient({ region: 'us-east-1', endpoint: dl.endpoint, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
async function table(name: string) { await c.send(new CreateTableCommand({ TableName: name, BillingMode: 'PAY_PER_REQUEST', AttributeDefinitions: [{ AttributeName: 'PK', AttributeType: 'S' }, { AttributeName: 'SK', AttributeType: 'S' }], KeySchema: [{ AttributeName: 'PK', KeyType: 'HASH' }, { AttributeName: 'SK', KeyType: 'RANGE' }], StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' } })); }
async function probe(name: string) { const t0 = Date.now(); for (let i = 0; i < 20; i++) await c.send(new TransactWriteItemsCommand({ TransactItems: Array.from({ length: 50 }, (_, j) => ({ Put: { TableName: name, Item: { PK: { S: `p${i}` }, SK: { S: `s${j}` }, data: { S: 'x'.repeat(300) } } } })) })); return Date.now() - t0; }
async function heavy(name: string, n: number) { await table(name); const t0 = Date.now(); for (let i = 0; i < n / 25; i++) await c.send(new BatchWriteItemCommand({ RequestItems: { [name]: Array.from({ length: 25 }, (_, j) => ({ PutRequest: { Item: { PK: { S: `h${i}` }, SK: { S: `s${j}` }, data: { S: 'y'.repeat(500) } } } })) } })); const w = Date.now() - t0; await c.send(new DeleteTableCommand({ TableName: name })); return w; }
await table('tab0'); console.log('fresh', await probe('tab0'));
let total = 1000;
for (const [r, n] of [[1, 15000], [2, 15000]] as const) { const w = await heavy(`heavy${r}`, n); total += n + 1000; await table(`tab${r}`); console.log(`records ~${total} (write of ${n}: ${w} ms)`, await probe(`tab${r}`)); }
await dl.stop();
