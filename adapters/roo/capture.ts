// `capture` for Roo Code: the shared task-folder reader (lib/formats/cline-tasks/capture.ts) with
// this extension's name, actor and tool names.
import type { CaptureOptions, SessionRef } from '../../lib/adapter/interface.js';
import type { SpEvent } from '../../lib/core/event.js';
import { captureTask } from '../../lib/formats/cline-tasks/capture.js';
import { flavor } from './paths.js';

export function captureRoo(ref: SessionRef, options: CaptureOptions = {}): AsyncGenerator<SpEvent> {
  return captureTask(flavor, ref, options);
}
