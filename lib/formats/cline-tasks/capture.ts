// `capture` for the Cline-family task stores (docs/formats/cline-tasks.md §3–§5). The conversation
// comes from `api_conversation_history.json` (what the model saw); `ui_messages.json` (what the
// panel showed: costs, checkpoints, approvals, errors) is kept beside it as meta events placed where
// they happened, so nothing is lost and the conversation is not told twice. A task with only UI
// messages is read from them instead. The files are read whole (the extensions rewrite them whole),
// within a size limit, and never written.
import { join } from 'node:path';
import type { CaptureOptions, Diagnose, SessionRef } from '../../adapter/interface.js';
import { UserError } from '../../cli/diagnostics.js';
import { SessionEmitter } from '../../core/emitter.js';
import { toEpochSeconds, type SpEvent } from '../../core/event.js';
import { MAX_JSON_DEPTH, isObject, nestedDeeperThan, str } from '../../core/json.js';
import type { TaskStoreFlavor } from './flavor.js';
import { ApiMapper, type Pending } from './map-api.js';
import { uiConversation, uiRecord } from './map-ui.js';
import { API_HISTORY, TASK_METADATA, UI_MESSAGES } from './paths.js';
import { messageList, readObjectFile, readTaskFile, type TaskFile } from './read.js';
import { cwdOf, editorOf, historyItemOf, storageOf, taskFolderOf } from './task.js';

type Json = Record<string, unknown>;

export function levelOf(type: string): 0 | 1 | 2 {
  if (type === 'meta') return 2;
  if (type === 'session.start' || type === 'message.thinking' || type === 'checkpoint') return 1;
  return 0;
}

/** The model the task ran with last: Cline's metadata lists each model used, newer UI messages name theirs. */
function modelOf(metadata: Json | undefined, ui: unknown[]): string | undefined {
  const usage = Array.isArray(metadata?.model_usage) ? metadata.model_usage.filter(isObject) : [];
  const fromMetadata = str(usage[usage.length - 1]?.model_id);
  if (fromMetadata) return fromMetadata;
  for (let i = ui.length - 1; i >= 0; i -= 1) {
    const info = isObject(ui[i]) ? (ui[i] as Json).modelInfo : undefined;
    if (isObject(info) && str(info.modelId)) return str(info.modelId);
  }
  return undefined;
}

function startPayload(flavor: TaskStoreFlavor, ref: SessionRef, folder: string, item: Json | undefined, metadata: Json | undefined, envelope: Json | undefined, ui: unknown[]): Json {
  const payload: Json = { native_id: ref.native_id, source_path: ref.path };
  const cwd = cwdOf(item);
  if (cwd) payload.cwd = cwd;
  if (typeof item?.task === 'string') payload.title = item.task;
  const model = modelOf(metadata, ui) ?? str(item?.modelId);
  if (model) payload.model = model;
  if (str(item?.mode)) payload.mode = item!.mode;
  if (str(item?.parentTaskId)) payload.parent_native_id = item!.parentTaskId;
  const storage = storageOf(folder);
  const extension = flavor.extensionIds.find((id) => storage.endsWith(id));
  if (extension) payload.extension = extension;
  const editor = editorOf(storage);
  if (editor) payload.editor = editor;
  if (item) payload.history_item = item;
  if (metadata) payload.task_metadata = metadata;
  if (envelope) payload.api_history_header = envelope;
  return payload;
}

/** One meta event for a conversation file that could not be read as one. */
function brokenFile(flavor: TaskStoreFlavor, name: string, file: TaskFile, problem: string | undefined): Pending | undefined {
  if (file.state === 'broken') return { type: 'meta', payload: { key: `${flavor.agent}.unparseable`, file: name, error: file.reason, text: file.text }, actor: 'system' };
  if (problem) return { type: 'meta', payload: { key: `${flavor.agent}.unparseable`, file: name, error: problem }, actor: 'system' };
  return undefined;
}

/** A record too deep for the canonical walks: reported and kept as a note without its body. */
function tooDeep(flavor: TaskStoreFlavor, record: unknown, where: string, onDiagnostic?: Diagnose): Pending | undefined {
  if (!nestedDeeperThan(record, MAX_JSON_DEPTH)) return undefined;
  onDiagnostic?.(where, `nested deeper than ${MAX_JSON_DEPTH} levels: kept as meta without its body`);
  return { type: 'meta', payload: { key: `${flavor.agent}.too-deep`, dropped: 'the record, nested too deep' }, actor: 'system' };
}

/** Where a UI message goes among the API messages: after the one its `conversationHistoryIndex` names, else by time. */
function comesBefore(ui: unknown, apiIndex: number, apiTs: number | undefined): boolean {
  if (!isObject(ui)) return true;
  if (typeof ui.conversationHistoryIndex === 'number') return ui.conversationHistoryIndex < apiIndex;
  const ts = toEpochSeconds(ui.ts);
  return apiTs !== undefined && ts !== undefined && ts <= apiTs;
}

export async function* captureTask(flavor: TaskStoreFlavor, ref: SessionRef, options: CaptureOptions = {}): AsyncGenerator<SpEvent> {
  const diagnose = options.onDiagnostic;
  const folder = taskFolderOf(ref.path);
  const apiPath = join(folder, API_HISTORY);
  const uiPath = join(folder, UI_MESSAGES);
  const apiFile = readTaskFile(apiPath, diagnose);
  const uiFile = readTaskFile(uiPath, diagnose);
  if (apiFile.state === 'absent' && uiFile.state === 'absent') throw new UserError(`neither ${API_HISTORY} nor ${UI_MESSAGES} is there`, folder);
  const api = messageList(apiFile, apiPath, diagnose);
  const ui = messageList(uiFile, uiPath, diagnose);
  const item = historyItemOf(folder, undefined, diagnose);
  const metadata = readObjectFile(join(folder, TASK_METADATA), diagnose);

  const emitter = new SessionEmitter(flavor.agent, ref.native_id);
  let lastTs = toEpochSeconds(isObject(ui.messages[0]) ? ui.messages[0].ts : undefined) ?? toEpochSeconds(item?.ts) ?? (ref.mtime as number | undefined) ?? Date.now() / 1000;
  const emit = (pending: Pending[], ts: number | undefined, origin: Json): SpEvent[] => {
    if (ts !== undefined) lastTs = ts;
    return pending.map((p, i) => {
      const o = { ...origin };
      if (i > 0) delete o.raw;
      return emitter.emit(p.type, p.payload, lastTs, { actor: p.actor, level: levelOf(p.type), origin: o });
    });
  };
  yield emitter.emit('session.start', startPayload(flavor, ref, folder, item, metadata, api.envelope, ui.messages), lastTs, { actor: 'system', level: 1, origin: {} });
  for (const [name, file, list] of [[API_HISTORY, apiFile, api], [UI_MESSAGES, uiFile, ui]] as const) {
    const broken = brokenFile(flavor, name, file, list.problem);
    if (broken) yield* emit([broken], undefined, { path: join(folder, name) });
  }

  const raw = (record: unknown): Json => (options.raw ? { raw: [JSON.stringify(record)] } : {});
  const uiEvents = function* (index: number, record: unknown, conversation: boolean): Generator<SpEvent> {
    const where = `${uiPath}:${index + 1}`;
    const pending = tooDeep(flavor, record, where, diagnose) ?? null;
    const mapped = pending ? [pending] : conversation ? uiConversation(flavor, record, where, diagnose) : [uiRecord(flavor, record, where, diagnose)];
    yield* emit(mapped, isObject(record) ? toEpochSeconds(record.ts) : undefined, { native_seq: index + 1, path: uiPath, ...raw(record) });
  };

  if (apiFile.state !== 'ok' || api.problem) {
    // No usable API history: the UI messages are the conversation.
    for (let i = 0; i < ui.messages.length; i += 1) yield* uiEvents(i, ui.messages[i], true);
    return;
  }
  const mapper = new ApiMapper(flavor, ref.native_id, apiPath, diagnose);
  let next = 0;
  for (let i = 0; i < api.messages.length; i += 1) {
    const record = api.messages[i];
    const ts = isObject(record) ? toEpochSeconds(record.ts) : undefined;
    for (; next < ui.messages.length && comesBefore(ui.messages[next], i, ts); next += 1) yield* uiEvents(next, ui.messages[next], false);
    const deep = tooDeep(flavor, record, `${apiPath}:${i + 1}`, diagnose);
    const origin: Json = { native_seq: i + 1, path: apiPath, ...raw(record) };
    if (isObject(record) && str(record.id)) origin.native_uuid = record.id;
    yield* emit(deep ? [deep] : mapper.message(record, i + 1), ts, origin);
  }
  for (; next < ui.messages.length; next += 1) yield* uiEvents(next, ui.messages[next], false);
}
