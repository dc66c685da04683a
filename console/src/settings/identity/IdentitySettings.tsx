import { useEffect, useState } from 'preact/hooks';
import { useStrings } from '../../state/context.js';
import { CopyButton, SettingsForm, TextInput, Toggle } from '../kit/controls.js';
import { useResource } from '../kit/useResource.js';
import './identity.css';
import { EXAMPLES, SNIPPET } from './examples.js';
import { identityStrings } from './strings.js';

/** `/admin r=identity`: the secret is write-only (reads say `secret_set`); an omitted one is kept. */
interface Identity {
  secret?: string | null;
  secret_set: boolean;
  required: boolean;
}

/** 48 letters and digits from the browser's CSPRNG (about 285 bits). */
function generateSecret() {
  const abc = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  // 248 = 4 × 62: values at or above it are dropped, so every character is equally likely.
  const out: string[] = [];
  while (out.length < 48)
    for (const b of crypto.getRandomValues(new Uint8Array(64))) if (b < 248 && out.length < 48) out.push(abc[b % 62]!);
  return out.join('');
}

/** What the shop's server computes, here in the browser with a secret typed into this form (never a stored one). */
async function sign(secret: string, email: string) {
  const enc = new TextEncoder();
  const key = await crypto.subtle.importKey('raw', enc.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
  ]);
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, enc.encode(email)));
  return [...mac].map((b) => b.toString(16).padStart(2, '0')).join('');
}

function Code({ text, copy }: { text: string; copy: string }) {
  return (
    <div class="code-copy">
      <pre>
        <code>{text}</code>
      </pre>
      <CopyButton text={text} label={copy} />
    </div>
  );
}

export function IdentitySettings() {
  const t = useStrings(identityStrings);
  const res = useResource<Identity>('identity');
  const [email, setEmail] = useState('ada@example.com');
  const [signature, setSignature] = useState('');
  const secret = res.draft?.secret;
  const trying = typeof secret === 'string' && secret.length >= 32;

  useEffect(() => {
    if (!trying) return void setSignature('');
    let live = true;
    sign(secret, email).then(
      (sig) => live && setSignature(sig),
      () => live && setSignature(''),
    );
    return () => void (live = false);
  }, [secret, email]);

  const copies = [t.copyNode, t.copyPhp, t.copyPython];
  return (
    <SettingsForm
      title={t.title}
      intro={t.intro}
      resource={res}
      aside={() => (
        <div class="stack identity-help">
          <h2>{t.snippet}</h2>
          <p class="hint">{t.snippetHint}</p>
          <Code text={SNIPPET} copy={t.copySnippet} />
          <h2>{t.server}</h2>
          <p class="hint">{t.serverHint}</p>
          {EXAMPLES.map(([lang, code], i) => (
            <div>
              <h3>{lang}</h3>
              <Code text={code} copy={copies[i]!} />
            </div>
          ))}
        </div>
      )}
    >
      {(d, set) => (
        <>
          <p class="hint" id="identity-state">
            {d.secret === null ? t.removing : d.secret_set ? t.secretSet : t.secretUnset}
          </p>
          <TextInput
            id="identity-secret"
            label={t.secret}
            hint={t.secretHint}
            error={res.errors.secret}
            value={d.secret ?? ''}
            onChange={(v) => {
              // Empty: keep the stored secret (the API keeps an omitted one).
              const { secret: _, ...rest } = d;
              set(v ? { ...rest, secret: v } : rest);
            }}
          />
          <div class="actions">
            <button type="button" class="btn small" onClick={() => set({ ...d, secret: generateSecret() })}>
              {t.generate}
            </button>
            {d.secret_set && (
              <button type="button" class="btn small ghost danger" onClick={() => set({ ...d, secret: null })}>
                {t.removeSecret}
              </button>
            )}
          </div>
          {trying && (
            <div class="once banner">
              <p class="hint">{t.copyBeforeSave}</p>
              <CopyButton text={secret} />
              <p>
                <strong>{t.tryIt}</strong>
              </p>
              <TextInput id="identity-try" label={t.tryEmail} value={email} onChange={setEmail} />
              <p class="hint">{t.tryHint}</p>
              <code class="signature" data-testid="signature">
                {signature}
              </code>
            </div>
          )}
          <Toggle
            id="identity-required"
            label={t.required}
            hint={t.requiredHint}
            error={res.errors.required}
            checked={d.required}
            onChange={(v) => set({ ...d, required: v })}
          />
        </>
      )}
    </SettingsForm>
  );
}
