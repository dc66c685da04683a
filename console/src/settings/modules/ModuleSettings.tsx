// Placeholder until this screen is built: the section's helper replaces this file.
export function ModuleSettings() {
  return <p class="hint">…</p>;
}
