/** Sign in with an API key (from `npm run admin -- create-api-key USER`, or the profile page). */
import { useState } from 'preact/hooks';
import { ErrorSummary, useAction } from '../components.tsx';
import { signIn, type Session } from '../session.ts';

export function SignIn({ onSignedIn, refused = false }: { onSignedIn: (session: Session) => void; refused?: boolean }) {
  const [key, setKey] = useState('');
  const action = useAction(signIn);
  return (
    <main id="main" class="sign-in">
      <h1>Compliance console</h1>
      <form
        onSubmit={async (event) => {
          event.preventDefault();
          const session = await action.run(key);
          if (session) onSignedIn(session);
        }}
      >
        {refused && !action.error && (
          <div class="notice notice-error" role="alert">
            The API no longer accepts your key (it was replaced, or your user was deactivated). Sign in with your current key.
          </div>
        )}
        <ErrorSummary error={action.error} />
        <label for="api-key">API key</label>
        <input
          id="api-key"
          name="api-key"
          type="password"
          autoFocus
          autocomplete="off"
          spellcheck={false}
          required
          value={key}
          onInput={(event) => setKey(event.currentTarget.value)}
        />
        <p class="hint">Your key is kept in this browser tab only, until you sign out or close it.</p>
        <button type="submit" disabled={action.running}>
          {action.running ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
