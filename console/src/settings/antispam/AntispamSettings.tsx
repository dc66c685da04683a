// Placeholder until this screen is built: the section's helper replaces this file.
export function AntispamSettings() {
  return <p class="hint">…</p>;
}
