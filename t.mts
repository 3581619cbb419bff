import { readFileSync, readdirSync } from 'node:fs';
import { advisoryFromOsv, advisoryPackageKeys } from './shared/domain/advisories.ts';
import { osvCoordinates, osvPackageKey } from './shared/domain/advisory-matching.ts';
import { planLinks } from './shared/domain/advisory-links.ts';
import { purlFromString } from './shared/sbom/purl.ts';
const byKey = new Map<string, any[]>();
for (const f of readdirSync('test/fixtures/osv/go')) {
  const r = advisoryFromOsv(JSON.parse(readFileSync('test/fixtures/osv/go/' + f, 'utf8'))); if (!r.ok) continue;
  for (const k of advisoryPackageKeys(r.advisory)) byKey.set(k, [...(byKey.get(k) ?? []), { ...r.advisory, entries: r.advisory.affected.filter((e) => osvPackageKey(e.ecosystem, e.name) === k) }]);
}
const bom = JSON.parse(readFileSync('test/fixtures/sbom/cyclonedx-gomod-proton-bridge-1.8.0.cdx.json', 'utf8'));
let links = 0;
for (const c of bom.components) {
  const p = purlFromString(c.purl); if (!p.ok) continue; const co = osvCoordinates(p.parts); if (!co.ok) continue;
  const { plans } = planLinks(byKey.get(osvPackageKey(co.ecosystem, co.name)) ?? [], [{ uuid: c.purl, dataspace: 'a', version: co.version, vulnerabilities: {} }]);
  links += plans.reduce((t, pl) => t + pl.link.length, 0);
  if (plans.length) console.log(c.purl, plans.map((pl) => pl.advisory.id).join(' '));
}
console.log('links', links);
