/**
 * Initials avatars (issue 30): the colour comes from the agent's id, so it stays when they rename
 * themselves and differs between two Graces. Lightness 28% at 60% saturation keeps white initials at
 * a contrast of at least 4.5:1 on every hue (yellow, the lightest, is about 5:1).
 */
export function avatarColor(id: string): string {
  let hash = 2166136261; // FNV-1a
  for (let i = 0; i < id.length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 16777619);
  return `hsl(${(hash >>> 0) % 360} 60% 28%)`;
}

/** The first letters of the first and the last word of a name: "Grace B. Hopper" is GH. */
export function initials(name: string): string {
  const words = name.trim().split(/\s+/).filter(Boolean);
  if (!words.length) return '?';
  const first = [...words[0]!][0]!;
  const last = words.length > 1 ? [...words[words.length - 1]!][0]! : '';
  return (first + last).toUpperCase();
}
