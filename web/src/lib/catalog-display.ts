/**
 * How the catalog pages show what the API answers: purls as people read them, risk scores as bands and
 * usage policies as tones. Pure and DOM-free, so it is unit-tested in Node.
 */

/**
 * A purl for display: each percent-encoded part decoded (`pkg:npm/%40aws-sdk/client-s3@3.1` reads
 * `pkg:npm/@aws-sdk/client-s3@3.1`). The API keeps the canonical, encoded form; this is only for eyes.
 * A broken escape leaves that part as written.
 */
export function displayPurl(purl: string): string {
  return purl.replace(/(%[0-9A-Fa-f]{2})+/g, (escaped) => {
    try {
      return decodeURIComponent(escaped);
    } catch {
      return escaped;
    }
  });
}

export type Tone = 'error' | 'warning' | 'notice' | 'ok' | 'none';

export interface RiskBand {
  readonly label: 'Critical' | 'High' | 'Medium' | 'Low' | 'None' | 'Not scored';
  readonly tone: Tone;
}

/**
 * The band of a 0.0–10.0 risk score, with the CVSS v3 qualitative bands (Critical ≥ 9.0, High ≥ 7.0,
 * Medium ≥ 4.0, Low > 0): the scale the scores of an SBOM's ratings come from.
 */
export function riskBand(score: number | null | undefined): RiskBand {
  if (score === null || score === undefined || Number.isNaN(score)) return { label: 'Not scored', tone: 'none' };
  if (score >= 9) return { label: 'Critical', tone: 'error' };
  if (score >= 7) return { label: 'High', tone: 'error' };
  if (score >= 4) return { label: 'Medium', tone: 'warning' };
  if (score > 0) return { label: 'Low', tone: 'notice' };
  return { label: 'None', tone: 'ok' };
}

/** A usage policy's tone from its compliance alert: error red, warning yellow, none green. */
export function policyTone(complianceAlert: '' | 'warning' | 'error' | undefined): Tone {
  if (complianceAlert === 'error') return 'error';
  if (complianceAlert === 'warning') return 'warning';
  return complianceAlert === '' ? 'ok' : 'none';
}

/** The symbol beside a tone's word, so colour never carries the meaning alone. */
export const TONE_SYMBOL: Readonly<Record<Tone, string>> = { error: '✖', warning: '▲', notice: '●', ok: '✔', none: '–' };

/** The license keys an expression names (AND, OR, WITH and parentheses removed), in order, once each. */
export function expressionKeys(expression: string): string[] {
  const keys = expression
    .split(/[\s()]+/)
    .filter((token) => token && !/^(AND|OR|WITH)$/i.test(token));
  return [...new Set(keys)];
}

/** The uuid at the end of an API link (`…/products/<uuid>/`), or the value itself when it is one. */
export function lastSegment(link: string): string {
  const parts = link.split('?')[0]!.split('/').filter(Boolean);
  return parts[parts.length - 1] ?? '';
}
