/**
 * SBOM documents for tests: the real producers' fixtures under test/fixtures/sbom/ (made by
 * cyclonedx-npm 6.0.1 and npm 11's `npm sbom` on this repository; see its README), counts taken from
 * them independently of the reader, and large documents grown from a real one.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const SBOM_FIXTURES = fileURLToPath(new URL('../fixtures/sbom/', import.meta.url));

export function fixtureText(name: string): string {
  return readFileSync(SBOM_FIXTURES + name, 'utf8');
}

export function fixture(name: string): Record<string, unknown> {
  return JSON.parse(fixtureText(name)) as Record<string, unknown>;
}

type Json = Record<string, unknown>;

/** Every component object of a CycloneDX document, nested ones included (the subject's too), in document order. */
export function cyclonedxComponents(document: Json): Json[] {
  const found: Json[] = [];
  const walk = (components: unknown) => {
    for (const component of (components as Json[] | undefined) ?? []) {
      found.push(component);
      walk(component.components);
    }
  };
  walk(((document.metadata as Json | undefined)?.component as Json | undefined)?.components);
  walk(document.components);
  return found;
}

/**
 * A CycloneDX 1.6 document of `count` components, all distinct, grown from the real cyclonedx-npm
 * output of this repository (its components flattened, renamed `<name>-<n>` after the first round),
 * with each copy's dependencies copied within the round.
 */
export function largeCycloneDx(count: number): Json {
  const source = fixture('cyclonedx-npm-1.6-full.cdx.json');
  const seen = new Set<string>();
  const originals = cyclonedxComponents(source).filter((component) => {
    // One per purl: the copies must stay distinct.
    if (seen.has(component.purl as string)) return false;
    seen.add(component.purl as string);
    return true;
  });
  const dependencies = (source.dependencies as { ref: string; dependsOn?: string[] }[]) ?? [];
  const components: Json[] = [];
  const edges: { ref: string; dependsOn: string[] }[] = [];
  for (let round = 0; components.length < count; round++) {
    const rename = (ref: string) => (round === 0 ? ref : `${ref}#${round}`);
    for (const original of originals) {
      if (components.length === count) break;
      const { components: _nested, ...flat } = original;
      const name = round === 0 ? (original.name as string) : `${original.name as string}-${round}`;
      const purl = (original.purl as string).replace(/\/([^/@]+)@/, (_match, last: string) => `/${round === 0 ? last : `${last}-${round}`}@`);
      components.push({ ...flat, name, purl, 'bom-ref': rename(original['bom-ref'] as string) });
    }
    const present = new Set(components.map((component) => component['bom-ref']));
    for (const dependency of dependencies) {
      const ref = rename(dependency.ref);
      if (!present.has(ref)) continue;
      const dependsOn = (dependency.dependsOn ?? []).map(rename).filter((target) => present.has(target));
      if (dependsOn.length > 0) edges.push({ ref, dependsOn });
    }
  }
  return { ...source, serialNumber: 'urn:uuid:0d5f2c36-7f0e-4c45-9d43-2a4c1f2b7d10', components, dependencies: edges };
}
