import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
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
      ) : (
        <Workspace ticketId={ticketMatch?.[1] ?? null} />
      )}
      <Toasts />
      <Shortcuts />
    </>
  );
}

type SettingsComponent = ComponentType<{ section: string | null }>;
let settingsChunk: Promise<SettingsComponent> | null = null;

/** Settings are for admins and rarely opened: their code is a separate chunk, fetched on first visit. */
function SettingsArea({ section }: { section: string | null }) {
  const s = useStore();
  const [Area, setArea] = useState<SettingsComponent | null>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    settingsChunk ??= import('../settings/Settings.js').then((m) => m.Settings);
    settingsChunk.then(
      (C) => setArea(() => C),
      () => {
        settingsChunk = null;
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
  return Area ? <Area section={section} /> : <p class="boot">{s.t.value.loading}</p>;
}
