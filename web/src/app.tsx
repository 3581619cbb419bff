/** The console's frame: sign-in, the navigation, and the page the hash route names. */
import { useEffect, useState } from 'preact/hooks';
import { KEY_REFUSED_EVENT, resume, signOut, type Session } from './session.ts';
import { href, useRoute } from './router.ts';
import { SignIn } from './pages/sign-in.tsx';
import { ProductList } from './pages/products.tsx';
import { ProductPage } from './pages/product.tsx';
import { PolicyRules } from './pages/policy-rules.tsx';
import { RequestList } from './pages/requests.tsx';
import { RequestPage } from './pages/request.tsx';
import { NewRequest } from './pages/new-request.tsx';
import { WebhookList, WebhookPage } from './pages/webhooks.tsx';
import { Portfolio } from './pages/portfolio.tsx';
import { LicensesPage } from './pages/licenses.tsx';
import { PackagesPage } from './pages/packages.tsx';
import { VulnerabilitiesPage } from './pages/vulnerabilities.tsx';
import { AuditPage } from './pages/audit.tsx';
import { ErrorSummary, Loading, PageHeading } from './components.tsx';
import { ApiError } from './lib/api-client.ts';

export function App() {
  const [session, setSession] = useState<Session | ApiError | null | undefined>(undefined);
  const [refused, setRefused] = useState(false);
  const tryResume = () => {
    setSession(undefined);
    void resume().then((resumed) => setSession(resumed ?? null));
  };
  useEffect(() => {
    tryResume();
    const onRefused = () => {
      setRefused(true);
      setSession(null);
    };
    window.addEventListener(KEY_REFUSED_EVENT, onRefused);
    return () => window.removeEventListener(KEY_REFUSED_EVENT, onRefused);
  }, []);
  if (session === undefined) return <main id="main"><Loading what="the console" /></main>;
  if (session instanceof ApiError) {
    return (
      <main id="main" class="sign-in">
        <PageHeading>Compliance console</PageHeading>
        <ErrorSummary error={session} title="The API could not check your key." />
        <div class="actions">
          <button type="button" onClick={tryResume}>
            Try again
          </button>
          <button
            type="button"
            class="secondary"
            onClick={() => {
              signOut();
              setSession(null);
            }}
          >
            Sign in with another key
          </button>
        </div>
      </main>
    );
  }
  if (session === null) {
    return (
      <SignIn
        refused={refused}
        onSignedIn={(signedIn) => {
          setRefused(false);
          setSession(signedIn);
        }}
      />
    );
  }
  return (
    <Frame
      session={session}
      onSignOut={() => {
        signOut();
        setSession(null);
        location.hash = '';
      }}
    />
  );
}

/** The main navigation, in this order; its labels are the names the browser tests find the links by. */
const NAV = [
  { segment: 'products', label: 'Products', superuser: false },
  { segment: 'portfolio', label: 'Portfolio', superuser: true },
  { segment: 'requests', label: 'Requests', superuser: false },
  { segment: 'licenses', label: 'Licenses', superuser: false },
  { segment: 'packages', label: 'Packages', superuser: false },
  { segment: 'vulnerabilities', label: 'Vulnerabilities', superuser: false },
  { segment: 'policy', label: 'Policy', superuser: true },
  { segment: 'webhooks', label: 'Webhooks', superuser: true },
  { segment: 'audit', label: 'Audit', superuser: true },
] as const;

function Frame({ session, onSignOut }: { session: Session; onSignOut: () => void }) {
  const route = useRoute();
  const [section = 'products'] = route.segments;
  return (
    <>
      <a class="skip-link" href="#main" onClick={(event) => { event.preventDefault(); document.getElementById('main')?.focus(); }}>
        Skip to content
      </a>
      <header class="site-header">
        <span class="brand">Compliance console</span>
        <nav aria-label="Main">
          <ul>
            {NAV.filter((item) => session.isSuperuser || !item.superuser).map((item) => (
              <li key={item.segment}>
                <a href={href([item.segment])} aria-current={section === item.segment ? 'page' : undefined}>
                  {item.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="signed-in">
          <span>
            Signed in as {session.username} ({session.dataspace})
          </span>
          <button type="button" class="secondary" onClick={onSignOut}>
            Sign out
          </button>
        </div>
      </header>
      {/* A new page (not a new tab or query of the same page) starts afresh. */}
      {/* The default page has its section's key: following its own nav link (#/products) keeps it, not a reload. */}
      <main id="main" tabIndex={-1} key={[section, ...route.segments.slice(1, 2)].join('/')}>
        <Page session={session} segments={route.segments} query={route.query} />
      </main>
    </>
  );
}

function Page({ session, segments, query }: { session: Session; segments: readonly string[]; query: URLSearchParams }) {
  const [section = 'products', id, tab] = segments;
  switch (section) {
    case 'products':
      return id ? <ProductPage session={session} uuid={id} tab={tab ?? 'details'} query={query} /> : <ProductList session={session} query={query} />;
    case 'requests':
      if (id === 'new') return <NewRequest session={session} />;
      return id ? <RequestPage session={session} uuid={id} /> : <RequestList session={session} query={query} />;
    case 'portfolio':
      return <Portfolio session={session} query={query} />;
    case 'licenses':
      return <LicensesPage session={session} segments={segments} query={query} />;
    case 'packages':
      return <PackagesPage session={session} segments={segments} query={query} />;
    case 'vulnerabilities':
      return <VulnerabilitiesPage session={session} segments={segments} query={query} />;
    case 'policy':
    case 'policy-rules': // the address of this page before it was named Policy
      return session.isSuperuser ? <PolicyRules session={session} /> : <SuperusersOnly title="Policy" what="The policy rules, usage policies and the recommended policy are set by the dataspace's superusers." />;
    case 'audit':
      return <AuditPage session={session} query={query} />;
    case 'webhooks':
      if (!session.isSuperuser) return <SuperusersOnly title="Webhooks" what="Webhook subscriptions are managed by the dataspace's superusers." />;
      return id ? <WebhookPage session={session} uuid={id} query={query} /> : <WebhookList session={session} query={query} />;
    default:
      return (
        <>
          <h1>Not found</h1>
          <p>
            There is no such page. <a href={href(['products'])}>Go to the products</a>.
          </p>
        </>
      );
  }
}

/** A superusers' page reached by its address by someone else: said, with no form that would only answer 403. */
function SuperusersOnly({ title, what }: { title: string; what: string }) {
  return (
    <>
      <PageHeading>{title}</PageHeading>
      <p>{what} Ask one of them; your products and requests are in the navigation above.</p>
    </>
  );
}
