/** PLACEHOLDER of the skeleton commit: the Licenses page is being built (issue 19). */
import { PageHeading } from '../components.tsx';
import type { Session } from '../session.ts';

// eslint-disable-next-line @typescript-eslint/no-unused-vars
export function LicensesPage(_props: { session: Session; segments: readonly string[]; query: URLSearchParams }) {
  return <PageHeading>Licenses</PageHeading>;
}
