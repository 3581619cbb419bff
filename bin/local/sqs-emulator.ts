/**
 * The SQS emulator (fauxqs: SQS and S3 APIs) of the local stack, on loopback only, answering its signed
 * front alone (signed-front.ts, which verifies each request's signature as AWS does): every request must
 * carry the front's secret header, drawn at random for this start and known to the stack's process only;
 * any other, a direct request of another process on the machine included, is refused 403.
 *
 * fauxqs's own startFauxqs() listens on 0.0.0.0 and takes no hook, so this builds its app with its
 * exported buildApp() and its stores (deep imports of the pinned fauxqs 2.4.1), as startFauxqs does:
 * persisted state loaded before the stores get their persistence, then the message spy.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { buildApp, type MessageSpyReader } from 'fauxqs';

/** fauxqs's dist folder: its entry's (the package exports only its entry). */
const FAUXQS_DIST = new URL('.', import.meta.resolve('fauxqs'));

/** A fauxqs internal module, by its path in the package's dist folder. */
async function internal<T>(path: string): Promise<T> {
  return (await import(new URL(path, FAUXQS_DIST).href)) as T;
}

interface Stores {
  sqsStore: { persistence?: unknown; spy?: unknown; allQueues(): Iterable<{ persistence?: unknown }> };
  snsStore: { persistence?: unknown; spy?: unknown };
  s3Store: { persistence?: unknown; spy?: unknown };
}

/**
 * The largest S3 object body the emulator takes: above the service's largest upload (50 MiB, held to
 * it by the signed Content-Length of its upload URLs), below what one process should hold in memory.
 */
export const S3_OBJECT_LIMIT_BYTES = 64 * 1024 * 1024;

/** The header the signed front adds to every request it passes on, with the emulator's secret. */
export const FRONT_SECRET_HEADER = 'x-local-signed-front';

export interface SqsEmulator {
  /** http://127.0.0.1:PORT, answering only requests with `FRONT_SECRET_HEADER: frontSecret`. */
  readonly endpoint: string;
  readonly frontSecret: string;
  readonly spy: MessageSpyReader;
  stop(): Promise<void>;
}

/** Starts fauxqs on 127.0.0.1 (a free port), its state persisted in `dataDir` (SQLite), with a message spy of `spyBufferSize`. */
export async function startSqsEmulator(options: { dataDir: string; spyBufferSize: number }): Promise<SqsEmulator> {
  const [{ SqsStore }, { SnsStore }, { S3Store }, { PersistenceManager }, { MessageSpy }] = await Promise.all([
    internal<{ SqsStore: new () => Stores['sqsStore'] }>('sqs/sqsStore.js'),
    internal<{ SnsStore: new () => Stores['snsStore'] }>('sns/snsStore.js'),
    internal<{ S3Store: new () => Stores['s3Store'] }>('s3/s3Store.js'),
    internal<{ PersistenceManager: new (dir: string) => { load(...stores: unknown[]): void; close(): void } }>('persistence.js'),
    internal<{ MessageSpy: new (params: { bufferSize: number }) => MessageSpyReader }>('spy.js'),
  ]);
  const sqsStore = new SqsStore();
  const snsStore = new SnsStore();
  const s3Store = new S3Store();
  const persistence = new PersistenceManager(options.dataDir);
  persistence.load(sqsStore, snsStore, s3Store);
  sqsStore.persistence = persistence;
  snsStore.persistence = persistence;
  s3Store.persistence = persistence;
  for (const queue of sqsStore.allQueues()) queue.persistence = persistence;
  const spy = new MessageSpy({ bufferSize: options.spyBufferSize });
  sqsStore.spy = spy;
  snsStore.spy = spy;
  s3Store.spy = spy;

  const frontSecret = randomBytes(24).toString('base64url');
  const expected = Buffer.from(frontSecret);
  const app = buildApp({ logger: false, stores: { sqsStore, snsStore, s3Store } } as Parameters<typeof buildApp>[0]);
  app.addHook('onRequest', async (request, reply) => {
    const given = Buffer.from(String(request.headers[FRONT_SECRET_HEADER] ?? ''));
    if (given.length === expected.length && timingSafeEqual(given, expected)) return;
    await reply
      .code(403)
      .header('Content-Type', 'application/xml')
      .send('<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>AccessDenied</Code><Message>This emulator answers the local stack\'s signed front only.</Message></Error>');
  });
  // S3 objects up to S3_OBJECT_LIMIT_BYTES: fauxqs takes 11 MiB bodies, below the service's 50 MiB
  // uploads. Its wildcard parser (S3's bodies: any type not SQS's or SNS's) is made again with the
  // larger limit, which Fastify applies to the routes that set none of their own (all of fauxqs's).
  app.removeContentTypeParser('*');
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: S3_OBJECT_LIMIT_BYTES }, (_request, body, done) => done(null, body));
  app.addHook('preClose', () => persistence.close());
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    endpoint: address,
    frontSecret,
    spy,
    stop: () => app.close(),
  };
}
