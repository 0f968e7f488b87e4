// JSON Schemas (2020-12) for every published ATIF version, written by us from the Harbor RFC 0001
// "Agent Trajectory Interchange Format" (docs/rfcs/0001-trajectory-format.md). Section names below
// are the RFC's: §II Root-Level Metadata, AgentSchema, FinalMetricsSchema, StepObject,
// ToolCallSchema, MetricsSchema, ObservationSchema, ObservationResultSchema,
// SubagentTrajectoryRefSchema; §I Version History says which version added which field.
// v1.0–v1.4 follow the RFC text; the v1.5–v1.7 additions (tool definitions, copied context and
// continuation, multimodal content parts, trajectory ids, embedded subagents, per-step LLM call
// counts, `extra` on calls and results) follow the RFC's later Version History entries as the
// published trajectories of those versions use them (see fixtures/atif/README.md).
//
// The schemas are closed (additionalProperties: false) on purpose: a field a version does not
// define is then named by JSON pointer. Reading treats those as unknown fields to pass through as
// meta (capture.ts); writing treats them as a bug (materialize.ts validates every file it writes).

export const ATIF_VERSIONS = ['1.0', '1.1', '1.2', '1.3', '1.4', '1.5', '1.6', '1.7'] as const;
export type AtifVersion = (typeof ATIF_VERSIONS)[number];
export const LATEST_ATIF_VERSION: AtifVersion = '1.7';

/** `ATIF-v1.4` → `1.4`; undefined for anything else. */
export function versionOf(schemaVersion: unknown): AtifVersion | undefined {
  if (typeof schemaVersion !== 'string') return undefined;
  const m = /^ATIF-v(\d+\.\d+)$/.exec(schemaVersion);
  return m && (ATIF_VERSIONS as readonly string[]).includes(m[1]) ? (m[1] as AtifVersion) : undefined;
}

/** Whether `version` is `since` or later. */
export function atLeast(version: AtifVersion, since: AtifVersion): boolean {
  return ATIF_VERSIONS.indexOf(version) >= ATIF_VERSIONS.indexOf(since);
}

type Schema = Record<string, unknown>;

const object = (properties: Record<string, Schema>, required: string[] = []): Schema => ({ type: 'object', properties, required, additionalProperties: false });
const freeObject: Schema = { type: 'object' };
const integer: Schema = { type: 'integer', minimum: 0 };
const string: Schema = { type: 'string' };
const number: Schema = { type: 'number' };

/** ISO 8601 date-time as StepObject.timestamp asks (RFC example: "2025-10-16T14:30:00Z"). */
const timestamp: Schema = { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?(Z|[+-]\\d{2}:?\\d{2})?$' };

/** The schema of one ATIF version: the root object with its definitions. */
export function atifSchema(version: AtifVersion): Schema {
  const since = (v: AtifVersion): boolean => atLeast(version, v);

  // v1.6: message and observation content are a string or an array of content parts (text, image
  // by reference to a file).
  const contentPart: Schema = {
    oneOf: [
      object({ type: { const: 'text' }, text: string }, ['type', 'text']),
      object({ type: { const: 'image' }, source: object({ media_type: string, path: string }, ['media_type', 'path']) }, ['type', 'source']),
    ],
  };
  const content: Schema = since('1.6') ? { oneOf: [string, { type: 'array', items: { $ref: '#/$defs/content_part' } }] } : string;

  // §II AgentSchema: name and version required; model_name and extra optional; v1.5 tool_definitions.
  const agentProps: Record<string, Schema> = { name: string, version: string, model_name: string, extra: freeObject };
  if (since('1.5')) agentProps.tool_definitions = { type: 'array', items: freeObject };

  // §II ToolCallSchema: id, function name, arguments (an object, may be empty); v1.7 extra.
  const toolCallProps: Record<string, Schema> = { tool_call_id: string, function_name: string, arguments: freeObject };
  if (since('1.7')) toolCallProps.extra = freeObject;

  // §II SubagentTrajectoryRefSchema.
  const subagentRefProps: Record<string, Schema> = { session_id: string, trajectory_path: string, extra: freeObject };
  if (since('1.7')) subagentRefProps.trajectory_id = string;

  // §II ObservationResultSchema: every field optional; source_call_id may be null.
  const resultProps: Record<string, Schema> = {
    source_call_id: { type: ['string', 'null'] },
    content,
    subagent_trajectory_ref: { type: 'array', items: { $ref: '#/$defs/subagent_trajectory_ref' } },
  };
  if (since('1.7')) resultProps.extra = freeObject;

  // §II MetricsSchema: all optional; v1.3 completion_token_ids, v1.4 prompt_token_ids.
  const metricsProps: Record<string, Schema> = { prompt_tokens: integer, completion_tokens: integer, cached_tokens: integer, cost_usd: number, logprobs: { type: 'array', items: number }, extra: freeObject };
  if (since('1.3')) metricsProps.completion_token_ids = { type: 'array', items: { type: 'integer' } };
  if (since('1.4')) metricsProps.prompt_token_ids = { type: 'array', items: { type: 'integer' } };

  // §II StepObject.
  const stepProps: Record<string, Schema> = {
    step_id: { type: 'integer', minimum: 1 },
    timestamp,
    source: { enum: ['system', 'user', 'agent'] },
    model_name: string,
    reasoning_effort: { type: ['string', 'number'] },
    message: content,
    reasoning_content: string,
    tool_calls: { type: 'array', items: { $ref: '#/$defs/tool_call' } },
    observation: { $ref: '#/$defs/observation' },
    metrics: { $ref: '#/$defs/metrics' },
    extra: freeObject,
  };
  if (since('1.5')) stepProps.is_copied_context = { type: 'boolean' };
  if (since('1.7')) stepProps.llm_call_count = integer;
  const agentOnly = ['model_name', 'reasoning_effort', 'reasoning_content', 'tool_calls', 'metrics'];
  // "Only applicable when source is agent": model_name, reasoning_effort, reasoning_content,
  // tool_calls, metrics; observation also on agent steps, and (v1.2) on system steps.
  const notOn = (source: string, fields: string[]): Schema => ({
    if: { properties: { source: { const: source } }, required: ['source'] },
    then: { not: { anyOf: fields.map((f) => ({ required: [f] })) } },
  });
  const stepRules: Schema[] = [notOn('user', [...agentOnly, 'observation']), notOn('system', since('1.2') ? agentOnly : [...agentOnly, 'observation'])];

  // §II FinalMetricsSchema: all optional.
  const finalMetrics = object({ total_prompt_tokens: integer, total_completion_tokens: integer, total_cached_tokens: integer, total_cost_usd: number, total_steps: integer, extra: freeObject });

  // §II Root-Level Metadata: schema_version, session_id, agent, steps required; notes,
  // final_metrics optional; v1.1 extra; v1.5 continued_trajectory_ref; v1.7 trajectory_id and
  // embedded subagent trajectories.
  const rootProps: Record<string, Schema> = {
    schema_version: { const: `ATIF-v${version}` },
    session_id: string,
    agent: { $ref: '#/$defs/agent' },
    steps: { type: 'array', items: { $ref: '#/$defs/step' } },
    notes: string,
    final_metrics: { $ref: '#/$defs/final_metrics' },
  };
  if (since('1.1')) rootProps.extra = freeObject;
  if (since('1.5')) rootProps.continued_trajectory_ref = string;
  if (since('1.7')) {
    rootProps.trajectory_id = string;
    rootProps.subagent_trajectories = { type: 'array', items: { $ref: '#' } };
  }

  const defs: Record<string, Schema> = {
    agent: object(agentProps, ['name', 'version']),
    tool_call: object(toolCallProps, ['tool_call_id', 'function_name', 'arguments']),
    subagent_trajectory_ref: object(subagentRefProps, ['session_id']),
    observation_result: object(resultProps),
    observation: object({ results: { type: 'array', items: { $ref: '#/$defs/observation_result' } } }, ['results']),
    metrics: object(metricsProps),
    step: { ...object(stepProps, ['step_id', 'source', 'message']), allOf: stepRules },
    final_metrics: finalMetrics,
  };
  if (since('1.6')) defs.content_part = contentPart;

  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: `urn:sp:atif:v${version}`,
    title: `ATIF v${version} trajectory (Harbor RFC 0001)`,
    ...object(rootProps, ['schema_version', 'session_id', 'agent', 'steps']),
    $defs: defs,
  };
}
