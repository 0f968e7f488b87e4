// Validation of ATIF documents against the schema of their version (schemas.ts, ajv), plus the two
// rules the RFC states in prose: step_id counts 1, 2, 3 … (§II StepObject: "Ordinal index of the
// turn (starting from 1)") and a result's source_call_id names a tool_call_id of its own step
// (§II ObservationResultSchema). Every problem is named by JSON pointer; `lineOf` turns a pointer
// into the line it starts on, for `file:line` diagnostics.
import type { ErrorObject, ValidateFunction } from 'ajv';
import { isObject } from '../../lib/core/json.js';
import { atifSchema, type AtifVersion } from './schemas.js';

export interface AtifIssue {
  /** JSON pointer into the document, `''` for the root. */
  pointer: string;
  message: string;
  /** A field the version does not define (capture passes it through; a writer must not write it). */
  unknown?: boolean;
}

const compiled = new Map<AtifVersion, { root: ValidateFunction; step: ValidateFunction }>();

async function validatorsFor(version: AtifVersion): Promise<{ root: ValidateFunction; step: ValidateFunction }> {
  let validators = compiled.get(version);
  if (!validators) {
    const { Ajv2020 } = await import('ajv/dist/2020.js');
    const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true });
    const schema = atifSchema(version);
    const root = ajv.compile(schema);
    // The step definition of the same schema, for a trajectory checked a step at a time.
    const step = ajv.getSchema(`${String(schema.$id)}#/$defs/step`);
    if (!step) throw new Error(`the ATIF v${version} schema has no step definition`);
    validators = { root, step };
    compiled.set(version, validators);
  }
  return validators;
}

function escape(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

function fromAjv(errors: ErrorObject[] | null | undefined): AtifIssue[] {
  const out: AtifIssue[] = [];
  const seen = new Set<string>();
  for (const e of errors ?? []) {
    // The branches of oneOf/if repeat the real error; the pointer and the leaf message say it.
    if (e.keyword === 'if' || e.keyword === 'oneOf' || e.keyword === 'anyOf') continue;
    let issue: AtifIssue;
    if (e.keyword === 'additionalProperties') {
      const key = String((e.params as { additionalProperty: string }).additionalProperty);
      issue = { pointer: `${e.instancePath}/${escape(key)}`, message: 'a field this ATIF version does not define', unknown: true };
    } else if (e.keyword === 'not') {
      issue = { pointer: e.instancePath, message: 'a field only agent steps may have (RFC §II StepObject)' };
    } else {
      issue = { pointer: e.instancePath, message: e.message ?? 'invalid' };
    }
    const key = `${issue.pointer}\0${issue.message}`;
    if (!seen.has(key)) out.push(issue);
    seen.add(key);
  }
  return out;
}

/** The rules the RFC states in prose, over one trajectory (and its embedded subagents). */
function proseRules(doc: unknown, at = ''): AtifIssue[] {
  if (!isObject(doc) || !Array.isArray(doc.steps)) return [];
  const out: AtifIssue[] = [];
  doc.steps.forEach((step, i) => out.push(...stepProseRules(step, i, at)));
  if (Array.isArray(doc.subagent_trajectories)) doc.subagent_trajectories.forEach((sub, k) => out.push(...proseRules(sub, `${at}/subagent_trajectories/${k}`)));
  return out;
}

/** One step's rules: its id is its ordinal (§II StepObject), a result's source_call_id names a call of its own step (§II ObservationResultSchema). */
function stepProseRules(step: unknown, i: number, at = ''): AtifIssue[] {
  if (!isObject(step)) return [];
  const out: AtifIssue[] = [];
  if (typeof step.step_id === 'number' && step.step_id !== i + 1) out.push({ pointer: `${at}/steps/${i}/step_id`, message: `must be ${i + 1} (step ids count from 1 without gaps)` });
  const ids = new Set(Array.isArray(step.tool_calls) ? step.tool_calls.map((c) => (isObject(c) ? c.tool_call_id : undefined)) : []);
  const results = isObject(step.observation) && Array.isArray(step.observation.results) ? step.observation.results : [];
  results.forEach((r, j) => {
    if (isObject(r) && typeof r.source_call_id === 'string' && !ids.has(r.source_call_id)) {
      out.push({ pointer: `${at}/steps/${i}/observation/results/${j}/source_call_id`, message: `names no tool_call_id of this step (${r.source_call_id})` });
    }
  });
  return out;
}

/**
 * A trajectory checked as it is written, a step at a time (a writer holds no whole document): `root`
 * checks the document with its steps left out (`steps: []`), `step` one step at its index. The
 * problems are the ones checkTrajectory finds, the root's first.
 */
export interface TrajectoryChecker {
  root(doc: Record<string, unknown>): AtifIssue[];
  step(step: unknown, index: number): AtifIssue[];
}

export async function trajectoryChecker(version: AtifVersion): Promise<TrajectoryChecker> {
  const validate = await validatorsFor(version);
  return {
    root: (doc) => {
      const skeleton = { ...doc, steps: [] };
      return [...(validate.root(skeleton) ? [] : fromAjv(validate.root.errors)), ...proseRules(skeleton)];
    },
    step: (step, index) => {
      const prefix = `/steps/${index}`;
      const issues = validate.step(step) ? [] : fromAjv(validate.step.errors).map((issue) => ({ ...issue, pointer: prefix + issue.pointer }));
      return [...issues, ...stepProseRules(step, index)];
    },
  };
}

/** Every problem with `doc` as an ATIF document of `version`, or an empty array. */
export async function checkTrajectory(doc: unknown, version: AtifVersion): Promise<AtifIssue[]> {
  const validate = (await validatorsFor(version)).root;
  const issues = validate(doc) ? [] : fromAjv(validate.errors);
  return [...issues, ...proseRules(doc)];
}

// ---- pointer → line -------------------------------------------------------------------------------

/**
 * The 1-based line each value of a JSON text starts on, by JSON pointer (only containers and their
 * direct members: enough to place a diagnostic). The text is already known to parse.
 */
export function lineIndex(text: string): Map<string, number> {
  const lines = new Map<string, number>();
  let i = 0;
  let line = 1;
  const ws = (): void => {
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === 0x0a) line += 1;
      else if (c !== 0x20 && c !== 0x09 && c !== 0x0d) break;
      i += 1;
    }
  };
  const str = (): string => {
    const start = i;
    i += 1;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i += 1;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const value = (pointer: string, depth: number): void => {
    ws();
    lines.set(pointer, line);
    const c = text[i];
    if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']';
      i += 1;
      let index = 0;
      ws();
      if (text[i] === close) {
        i += 1;
        return;
      }
      for (;;) {
        ws();
        let key = String(index++);
        if (c === '{') {
          key = str();
          ws();
          i += 1; // ':'
        }
        value(`${pointer}/${escape(key)}`, depth + 1);
        ws();
        if (text[i] === ',') i += 1;
        else {
          i += 1;
          return;
        }
      }
    }
    if (c === '"') {
      str();
      return;
    }
    while (i < text.length && !',]}'.includes(text[i]) && !/\s/.test(text[i])) i += 1;
  };
  value('', 0);
  return lines;
}

/** The line a pointer (or its nearest ancestor) starts on. */
export function lineOf(index: Map<string, number>, pointer: string): number {
  for (let p = pointer; ; p = p.slice(0, p.lastIndexOf('/'))) {
    const line = index.get(p);
    if (line !== undefined) return line;
    if (p === '') return 1;
  }
}
