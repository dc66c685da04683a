import type { ConfigData, RequestActor } from '../model/index.js';

/**
 * A support reply an agent sends from the console ends with their signature (Markdown, from their
 * profile), set apart by a blank line. Notes, customer messages and replies made with a key stay as
 * written, and a message that already ends with the signature is not signed twice.
 */
export function signedMessage(message: string, actor: RequestActor, config: ConfigData, support: boolean): string {
  if (!support || actor.kind !== 'agent') return message;
  const signature = config.agents.find((a) => a.id === actor.agent.id)?.signature.trim() ?? '';
  if (!signature || message.trimEnd().endsWith(signature)) return message;
  return `${message.trimEnd()}\n\n${signature}`;
}
