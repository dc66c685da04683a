// The assignment and reply-status screen's strings.
const en = {
  assignmentTitle: 'Assignment',
  assignmentIntro: 'Who gets new tickets. Off: they wait unassigned until someone takes them.',
  mode: 'New tickets',
  mode_off: 'stay unassigned',
  mode_round_robin: 'go round robin to the agents below',
  agents: 'Agents who take turns',
  agentsHint:
    'In turn order. An agent who is inactive, or not available in their profile, is skipped until they are again.',
  noAgents: 'No agent chosen: new tickets stay unassigned until you choose some.',
  agentError: 'This agent no longer exists, or is in the list twice: untick it and save again.',
  workflowTitle: 'After a reply',
  workflowIntro:
    'The status a support reply sets when the agent picks none. A customer’s next message moves the ticket back to open.',
  replyStatus: 'A reply sets the status',
  keepStatus: 'keep the status as it is',
  saveWorkflow: 'Save reply status',
};
export type AssignmentStrings = typeof en;

const de: Partial<AssignmentStrings> = {
  assignmentTitle: 'Zuweisung',
  assignmentIntro: 'Wer neue Tickets bekommt. Aus: Sie warten unzugewiesen, bis jemand sie übernimmt.',
  mode: 'Neue Tickets',
  mode_off: 'bleiben unzugewiesen',
  mode_round_robin: 'gehen reihum an die Mitarbeitenden unten',
  agents: 'Mitarbeitende, die sich abwechseln',
  agentsHint:
    'In dieser Reihenfolge. Wer inaktiv ist oder im Profil nicht verfügbar, wird übersprungen, bis sich das ändert.',
  noAgents: 'Niemand gewählt: Neue Tickets bleiben unzugewiesen, bis Sie jemanden wählen.',
  agentError:
    'Diese Person gibt es nicht mehr, oder sie steht doppelt in der Liste: Haken entfernen und erneut speichern.',
  workflowTitle: 'Nach einer Antwort',
  workflowIntro:
    'Der Status, den eine Support-Antwort setzt, wenn niemand einen wählt. Die nächste Nachricht des Kunden setzt das Ticket wieder auf offen.',
  replyStatus: 'Eine Antwort setzt den Status',
  keepStatus: 'Status beibehalten',
  saveWorkflow: 'Antwortstatus speichern',
};

export const assignmentStrings = { en, de };
