// Placeholder until this screen is built: the section's helper replaces this file.
export function SlaSettings() {
  return <p class="hint">…</p>;
}
