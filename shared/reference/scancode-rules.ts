/**
 * ScanCode's license rules index the service ships (see NOTICE.md), read and indexed once per process,
 * on first use. Like the reference library, the data is a file beside this module read at run time, and
 * the CDK function construct copies it next to each bundle (docs/license-expressions.md).
 */
import { readFileSync } from 'node:fs';
import { licenseKnowledgeOf, type LicenseKnowledge, type RulesData } from '../domain/license-knowledge.ts';

export type { RulesData };

/** The file's name, here and next to each Lambda bundle. */
export const RULES_DATA_FILE = 'scancode-license-rules.json';

export function readRulesData(file: URL = new URL(`./${RULES_DATA_FILE}`, import.meta.url)): RulesData {
  return JSON.parse(readFileSync(file, 'utf8')) as RulesData;
}

let knowledge: LicenseKnowledge | undefined;

export function scancodeKnowledge(): LicenseKnowledge {
  knowledge ??= licenseKnowledgeOf(readRulesData());
  return knowledge;
}
