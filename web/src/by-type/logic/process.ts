/** How a process's state reads and which colour it gets. Pure. */

export type Tone = 'ok' | 'failed' | 'running' | 'waiting' | 'neutral';

export interface ProcessStatus {
  state: string;
  exitStatus?: number;
  exitMessage?: string;
  tone: Tone;
  /** One line for people: "Finished [0]", "Finished [305] ERROR_…", "Excepted". */
  summary: string;
}

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

export function processStatus(attributes: Record<string, unknown>): ProcessStatus {
  const state = typeof attributes.process_state === 'string' ? attributes.process_state : 'unknown';
  const exitStatus = typeof attributes.exit_status === 'number' ? attributes.exit_status : undefined;
  const exitMessage = typeof attributes.exit_message === 'string' ? attributes.exit_message : undefined;
  let tone: Tone = 'neutral';
  if (state === 'finished') tone = exitStatus === 0 ? 'ok' : 'failed';
  else if (state === 'excepted' || state === 'killed') tone = 'failed';
  else if (state === 'running') tone = 'running';
  else if (state === 'waiting' || state === 'created') tone = 'waiting';
  let summary = capital(state);
  if (exitStatus !== undefined) summary += ` [${exitStatus}]`;
  if (exitMessage) summary += ` ${exitMessage}`;
  return { state, exitStatus, exitMessage, tone, summary };
}

/** Log levels as colour tones. */
export function logTone(level: string): Tone {
  const l = level.toUpperCase();
  if (l === 'ERROR' || l === 'CRITICAL') return 'failed';
  if (l === 'WARNING') return 'waiting';
  if (l === 'REPORT' || l === 'INFO') return 'running';
  return 'neutral';
}
