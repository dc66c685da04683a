import { useEffect, useRef } from 'preact/hooks';

declare global {
  interface Window {
    turnstile?: {
      render(el: HTMLElement, opts: { sitekey: string; callback(token: string): void }): string;
      remove(id: string): void;
    };
  }
}

const SCRIPT = 'https://challenges.cloudflare.com/turnstile/v0/api.js?render=explicit';

/** Cloudflare Turnstile, loaded only when the owner switched it on. */
export function Turnstile(props: { siteKey: string; onToken: (token: string) => void }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    let id: string | undefined;
    const draw = () => {
      if (box.current && window.turnstile)
        id = window.turnstile.render(box.current, { sitekey: props.siteKey, callback: props.onToken });
    };
    if (window.turnstile) draw();
    else {
      let script = document.querySelector<HTMLScriptElement>(`script[src="${SCRIPT}"]`);
      if (!script) {
        script = document.createElement('script');
        script.src = SCRIPT;
        script.async = true;
        document.head.append(script);
      }
      script.addEventListener('load', draw);
      return () => script!.removeEventListener('load', draw);
    }
    return () => id && window.turnstile?.remove(id);
  }, [props.siteKey]);
  return <div ref={box} />;
}
