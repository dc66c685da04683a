// Placeholder until this screen is built: the section's helper replaces this file.
export function StatusSettings() {
  return <p class="hint">…</p>;
}
