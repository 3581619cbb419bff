/**
 * The checkpoint file: per shard of the stream, the last sequence number done and whether the shard
 * is finished, so a restart neither replays nor skips a record. Written whole, then renamed, so a crash
 * never leaves half a file. Without a file, checkpoints live in memory only.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { ShardState } from './shards.ts';

interface CheckpointFileContent {
  streamArn: string;
  shards: Record<string, { sequenceNumber?: string; finished?: boolean }>;
}

export type ShardCheckpoints = CheckpointFileContent['shards'];

export class CheckpointFile {
  /** What the file held at start, then what was last written to it. */
  private saved: CheckpointFileContent | undefined;

  constructor(private readonly file: string | undefined) {}

  /** Reads the file, if any; throws when it is there but is no checkpoint file. */
  async load(): Promise<void> {
    if (!this.file) return;
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return;
      throw error;
    }
    const content = JSON.parse(text) as Partial<CheckpointFileContent>;
    if (typeof content.streamArn !== 'string' || typeof content.shards !== 'object' || content.shards === null) {
      throw new Error(`${this.file} is not a stream checkpoint file`);
    }
    this.saved = { streamArn: content.streamArn, shards: content.shards };
  }

  /** The checkpoints of the shards of `streamArn`; none when the file speaks of another stream. */
  of(streamArn: string): ShardCheckpoints | undefined {
    return this.saved?.streamArn === streamArn ? this.saved.shards : undefined;
  }

  async save(streamArn: string | undefined, shards: Iterable<ShardState>): Promise<void> {
    if (!this.file || !streamArn) return;
    const content: CheckpointFileContent = { streamArn, shards: {} };
    for (const shard of shards) {
      content.shards[shard.id] = {
        ...(shard.checkpoint !== undefined ? { sequenceNumber: shard.checkpoint } : {}),
        ...(shard.finished ? { finished: true } : {}),
      };
    }
    this.saved = content;
    await mkdir(dirname(this.file), { recursive: true });
    const temporary = `${this.file}.${process.pid}.tmp`;
    await writeFile(temporary, `${JSON.stringify(content, null, 2)}\n`);
    await rename(temporary, this.file);
  }
}

function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null ? (error as { code?: string }).code : undefined;
}
