// `capture` for OpenCode: the format's reader (lib/formats/opencode/capture.ts) over OpenCode's data dir.
import type { CaptureOptions, SessionRef } from '../../lib/adapter/interface.js';
import type { SpEvent } from '../../lib/core/event.js';
import { captureStore } from '../../lib/formats/opencode/capture.js';
import { owner } from './owner.js';

export { AGENT } from './owner.js';

export function captureOpenCode(ref: SessionRef, options: CaptureOptions = {}): AsyncGenerator<SpEvent> {
  return captureStore(owner, ref, options);
}
