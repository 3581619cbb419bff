/**
 * CVSS base scores from vectors, v2.0, v3.0, v3.1 and v4.0, by {metæffekt}'s maintained calculator
 * (ae-cvss-calculator), not a calculator of our own. A vector must name every base metric of its
 * version once, with a value the version defines: the calculator scores partial vectors, and a
 * score from half a vector would be a guess.
 */
import calculator from 'ae-cvss-calculator';

const { fromVector } = calculator as unknown as { fromVector(vector: string): { calculateScores(): { base?: number } } | undefined };

const BASE_METRICS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  '2.0': { AV: 'LAN', AC: 'HML', Au: 'MSN', C: 'NPC', I: 'NPC', A: 'NPC' },
  '3.0': { AV: 'NALP', AC: 'LH', PR: 'NLH', UI: 'NR', S: 'UC', C: 'HLN', I: 'HLN', A: 'HLN' },
  '3.1': { AV: 'NALP', AC: 'LH', PR: 'NLH', UI: 'NR', S: 'UC', C: 'HLN', I: 'HLN', A: 'HLN' },
  '4.0': { AV: 'NALP', AC: 'LH', AT: 'NP', PR: 'NLH', UI: 'NPA', VC: 'HLN', VI: 'HLN', VA: 'HLN', SC: 'HLN', SI: 'HLN', SA: 'HLN' },
};

/** The vector's CVSS version and its metrics, or undefined when it is not a complete vector. */
function metricsOf(vector: string): { version: string; metrics: Map<string, string> } | undefined {
  const parts = vector.trim().split('/');
  const prefix = /^CVSS:(3\.0|3\.1|4\.0)$/.exec(parts[0] ?? '');
  const version = prefix ? prefix[1]! : '2.0';
  const metrics = new Map<string, string>();
  for (const part of prefix ? parts.slice(1) : parts) {
    const match = /^([A-Za-z]+):([A-Za-z]+)$/.exec(part);
    if (!match || metrics.has(match[1]!)) return undefined;
    metrics.set(match[1]!, match[2]!);
  }
  for (const [metric, values] of Object.entries(BASE_METRICS[version]!)) {
    const value = metrics.get(metric);
    if (value === undefined || value.length !== 1 || !values.includes(value)) return undefined;
  }
  return { version, metrics };
}

/** The base score (0.0 to 10.0) of a complete CVSS vector, or null. */
export function cvssBaseScore(vector: string): number | null {
  if (!metricsOf(vector)) return null;
  let scores: { base?: number } | undefined;
  try {
    scores = fromVector(vector.trim())?.calculateScores();
  } catch {
    return null;
  }
  const base = scores?.base;
  return typeof base === 'number' && Number.isFinite(base) && base >= 0 && base <= 10 ? Math.round(base * 10) / 10 : null;
}
