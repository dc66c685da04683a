/** A systemd unit file as sections of settings; repeated settings (Environment=) keep every value. */
export type Unit = Record<string, Record<string, string[]>>;

/**
 * Parses the subset of the unit-file syntax (systemd.syntax(7)) that a unit uses: [Section] headers,
 * Key=Value lines, comments starting with # or ;. Anything else is an error, so a typo cannot pass.
 */
export function parseUnit(text: string): Unit {
  const unit: Unit = {};
  let section: Record<string, string[]> | undefined;
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith(';')) return;
    const header = /^\[([A-Za-z]+)\]$/.exec(line);
    if (header) {
      section = unit[header[1]!] ??= {};
      return;
    }
    const setting = /^([A-Za-z][A-Za-z0-9]*)=(.*)$/.exec(line);
    if (!setting || !section) throw new Error(`line ${i + 1} is not a setting in a section: ${raw}`);
    (section[setting[1]!] ??= []).push(setting[2]!);
  });
  return unit;
}

/** The variables of Environment= lines (one KEY=VALUE each, optionally quoted). */
export function unitEnvironment(unit: Unit): Record<string, string> {
  const env: Record<string, string> = {};
  for (const value of unit.Service?.Environment ?? []) {
    const m = /^"?([A-Za-z_][A-Za-z0-9_]*)=(.*?)"?$/.exec(value);
    if (!m) throw new Error(`Environment=${value} is not KEY=VALUE`);
    env[m[1]!] = m[2]!;
  }
  return env;
}

/**
 * The environment the service runs with: the unit's own, then what docs/deploy.md writes into
 * /etc/ticketing/env (`echo 'KEY=value' | sudo tee -a /etc/ticketing/env`), which systemd reads over it.
 */
export function serviceEnvironment(unit: Unit, guide: string): Record<string, string> {
  const env = unitEnvironment(unit);
  for (const m of guide.matchAll(/^echo '([A-Z_][A-Z0-9_]*)=([^']*)' \| sudo tee( -a)? \/etc\/ticketing\/env$/gm))
    env[m[1]!] = m[2]!;
  return env;
}
