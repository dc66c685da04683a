// Placeholder until this screen is built: the section's helper replaces this file.
export function AgentSettings() {
  return <p class="hint">…</p>;
}
