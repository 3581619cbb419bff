/**
 * The reference license texts file: built from ScanCode's `.LICENSE` files (bin/build-license-texts.ts),
 * each text deflated on its own and read back alone (shared/reference/scancode-texts.ts).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildTextsFile } from '../../bin/build-license-texts.ts';
import { parseFrontMatter } from '../../bin/build-license-rules.ts';
import { licenseTextsAt, scancodeTexts } from '../../shared/reference/scancode-texts.ts';
import { scancodeLibrary } from '../../shared/reference/scancode-licensedb.ts';

const toolkit = path.join(import.meta.dirname, '..', 'fixtures', 'scancode');
const licenseFile = (key: string) => readFileSync(path.join(toolkit, 'src', 'licensedcode', 'data', 'licenses', `${key}.LICENSE`), 'utf8');

describe('the license texts file', () => {
  it("holds each license's text as its .LICENSE file has it, and reads one back alone", async () => {
    const { file, count } = await buildTextsFile(toolkit, 'fixture');
    expect(count).toBe(6);
    const out = path.join(mkdtempSync(path.join(tmpdir(), 'texts-')), 'texts.bin');
    writeFileSync(out, file);
    const texts = licenseTextsAt(out);
    for (const key of ['mit', 'apache-2.0', 'gpl-2.0', 'classpath-exception-2.0']) {
      expect(texts.text(key)!.trim(), key).toBe(parseFrontMatter(licenseFile(key)).text.trim());
    }
    expect(texts.text('bsd-simplified')).toBeUndefined();
    expect(texts.text('constructor')).toBeUndefined();
    expect(texts.header.source).toMatchObject({ commit: 'fixture', licence: 'CC-BY-4.0' });
  });

  it('ships the texts of most reference licenses, with its source', () => {
    const shipped = scancodeTexts();
    expect(shipped.header.source).toMatchObject({ repository: 'https://github.com/aboutcode-org/scancode-toolkit', commit: 'bc787214ed21f313be84a1e6a571051cdfdd4003' });
    const keys = Object.keys(shipped.header.texts);
    expect(keys.length).toBeGreaterThan(2_000);
    expect(keys.every((key) => scancodeLibrary().byKey(key)?.key === key)).toBe(true);
    expect(shipped.text('apache-2.0')).toContain('TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION');
  });
});
