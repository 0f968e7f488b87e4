// The handoff as an A2A Task (`--format a2a`): for agents and orchestrators that speak the Agent2Agent
// protocol, the compiled handoff is a task submitted to the next agent, its text an artifact.
// Written against A2A protocol version 0.3.0 (the Task, TaskStatus, Message, Artifact and Part
// objects of its JSON schema, specification/json/a2a.json in the a2aproject/A2A repository);
// schema/a2a-task.schema.json restates the parts of it we emit, and the tests validate against it.
import { createHash } from 'node:crypto';
import { toIso } from '../core/event.js';

export const A2A_PROTOCOL_VERSION = '0.3.0';

export interface A2aSource {
  session: string;
  agent: string;
  native_id?: string;
  /** The seq the context.compiled event takes. */
  compiled_seq: number;
  last_ts?: number;
  /** The latest user request (the task's status message). */
  request?: string;
}

export interface A2aCompiled {
  target: string;
  tokenizer: string;
  budget: number;
  tokens: number;
  items: Array<Record<string, unknown>>;
  dropped: number;
}

/**
 * A Task in the `submitted` state: its context is the source session, its one artifact the handoff
 * (the budgeted text, then a data part with the provenance of every item in it).
 */
export function a2aTask(text: string, source: A2aSource, compiled: A2aCompiled): Record<string, unknown> {
  const digest = createHash('sha256').update(text).digest('hex');
  // Ids are derived from the content, so the same input compiles to the same bytes.
  const id = `sp-handoff-${digest.slice(0, 32)}`;
  const timestamp = source.last_ts !== undefined ? toIso(source.last_ts) : undefined;
  return {
    kind: 'task',
    id,
    contextId: source.session,
    status: {
      state: 'submitted',
      ...(timestamp ? { timestamp } : {}),
      ...(source.request
        ? { message: { kind: 'message', messageId: `${id}-request`, role: 'user', taskId: id, contextId: source.session, parts: [{ kind: 'text', text: source.request }] } }
        : {}),
    },
    artifacts: [
      {
        artifactId: `${id}-handoff`,
        name: 'handoff',
        description: `Context compiled by sp from ${source.agent} session ${source.native_id ?? source.session} for ${compiled.target}: ${compiled.tokens} of ${compiled.budget} tokens (${compiled.tokenizer}).`,
        parts: [
          { kind: 'text', text, metadata: { mimeType: 'text/markdown' } },
          {
            kind: 'data',
            data: {
              source: { session: source.session, agent: source.agent, ...(source.native_id ? { native_id: source.native_id } : {}), compiled_seq: source.compiled_seq },
              budget: compiled.budget,
              tokens: compiled.tokens,
              tokenizer: compiled.tokenizer,
              items: compiled.items,
              dropped: compiled.dropped,
              sha256: digest,
            },
          },
        ],
      },
    ],
    metadata: { 'sp/protocol': `a2a ${A2A_PROTOCOL_VERSION}`, 'sp/target': compiled.target },
  };
}
