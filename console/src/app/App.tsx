import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { LocationProvider, useLocation } from 'preact-iso/router';
import { StoreContext, useStore } from '../state/context.js';
import type { Store } from '../state/store.js';
import { AccountLinkPage, ForgotPassword } from '../components/AccountLink.js';
import { Header } from '../components/Header.js';
import { Profile } from '../components/Profile.js';
import { Shortcuts } from '../components/Shortcuts.js';
import { PasswordChange, SignIn } from '../components/SignIn.js';
import { Toasts } from '../components/Toasts.js';
import { Workspace } from '../components/Workspace.js';

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
  // The pages a signed-out agent may open: "Forgot password?" and the links mailed to them.
  const linkMatch = /^\/console\/(invite|reset)\/([A-Za-z0-9]+)\/?$/.exec(path);
  const open = linkMatch || path === '/console/forgot';
  useEffect(() => {
    if (session === null && !onSignIn && !open) route(`${SIGN_IN}?next=${encodeURIComponent(url)}`, true);
    if (session && onSignIn) route(safeNext(query.next), true);
  }, [session, onSignIn]);

  if (session === undefined) return <p class="boot">{s.t.value.loading}</p>;
  if (linkMatch) return <AccountLinkPage purpose={linkMatch[1] as 'invite' | 'reset'} token={linkMatch[2]!} />;
  if (path === '/console/forgot') return <ForgotPassword />;
  if (!session || onSignIn) return <SignIn />;
  if (s.mustChangePassword.value) return <PasswordChange />;

  const ticketMatch = /^\/console\/tickets\/([^/]+)\/?$/.exec(path);
  const settingsMatch = /^\/console\/settings(?:\/([^/]+))?\/?$/.exec(path);
  return (
    <>
      <a class="skip" href="#main">
        {s.t.value.skip}
      </a>
      <Header />
      {path === `${ROOT}profile` ? (
        <Profile />
      ) : settingsMatch ? (
        <SettingsArea section={settingsMatch[1] ?? null} />
      ) : /^\/console\/reports\/?$/.test(path) ? (
        <ReportsArea />
      ) : (
        <Workspace ticketId={ticketMatch?.[1] ?? null} />
      )}
      <Toasts />
      <Shortcuts />
    </>
  );
}

/**
 * A screen whose code is a separate chunk, fetched on first visit (Settings for admins, Reports): the
 * inbox's first load does not carry them. A failed fetch can be tried again by coming back.
 */
function lazyScreen<P extends object>(load: () => Promise<ComponentType<P>>) {
  let chunk: Promise<ComponentType<P>> | null = null;
  return function LazyScreen(props: P) {
    const s = useStore();
    const [Screen, setScreen] = useState<ComponentType<P> | null>(null);
    const [failed, setFailed] = useState(false);
    useEffect(() => {
      chunk ??= load();
      chunk.then(
        (C) => setScreen(() => C),
        () => {
          chunk = null;
          setFailed(true);
        },
      );
    }, []);
    if (failed)
      return (
        <p class="err banner" role="alert">
          {s.t.value.networkError}
        </p>
      );
    return Screen ? <Screen {...props} /> : <p class="boot">{s.t.value.loading}</p>;
  };
}

const SettingsArea = lazyScreen(() => import('../settings/Settings.js').then((m) => m.Settings));
const ReportsArea = lazyScreen(() => import('../reports/Reports.js').then((m) => m.Reports));
