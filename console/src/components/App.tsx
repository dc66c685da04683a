import { useEffect } from 'preact/hooks';
import { LocationProvider, useLocation } from 'preact-iso/router';
import { StoreContext, useStore } from '../state/context.js';
import type { Store } from '../state/store.js';
import { Header } from './Header.js';
import { Profile } from './Profile.js';
import { Shortcuts } from './Shortcuts.js';
import { PasswordChange, SignIn } from './SignIn.js';
import { Toasts } from './Toasts.js';
import { Workspace } from './Workspace.js';

const ROOT = '/console/';
const SIGN_IN = '/console/sign-in';

/** The console: the store for everything below, and client-side routes under /console/. */
export function App({ store }: { store: Store }) {
  return (
    <StoreContext.Provider value={store}>
      <LocationProvider scope="/console">
        <Shell />
      </LocationProvider>
    </StoreContext.Provider>
  );
}

/** Where to go after signing in: a path inside the console only (never another site). */
const safeNext = (next: string | undefined) => (next && /^\/console\/[^/\\]?/.test(next) ? next : ROOT);

function Shell() {
  const s = useStore();
  const { path, url, query, route } = useLocation();
  const session = s.session.value;

  useEffect(() => {
    void s.restore();
    s.onOpenTicket((id) => route(`${ROOT}tickets/${id}`));
  }, []);

  const onSignIn = path === SIGN_IN;
  useEffect(() => {
    if (session === null && !onSignIn) route(`${SIGN_IN}?next=${encodeURIComponent(url)}`, true);
    if (session && onSignIn) route(safeNext(query.next), true);
  }, [session, onSignIn]);

  if (session === undefined) return <p class="boot">{s.t.value.loading}</p>;
  if (!session || onSignIn) return <SignIn />;
  if (s.mustChangePassword.value) return <PasswordChange />;

  const ticketMatch = /^\/console\/tickets\/([^/]+)\/?$/.exec(path);
  return (
    <>
      <a class="skip" href="#main">
        {s.t.value.skip}
      </a>
      <Header />
      {path === `${ROOT}profile` ? <Profile /> : <Workspace ticketId={ticketMatch?.[1] ?? null} />}
      <Toasts />
      <Shortcuts />
    </>
  );
}
