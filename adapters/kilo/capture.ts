// `capture` for Kilo Code CLI: its sessions are OpenCode's rows (docs/formats/kilo.md §2), read by the
// format's reader (lib/formats/opencode/capture.ts) with Kilo's agent id: meta keys `kilo.part.<type>`,
// `kilo.todos`; Kilo's own part types and message fields pass through the same way.
import type { CaptureOptions, SessionRef } from '../../lib/adapter/interface.js';
import type { SpEvent } from '../../lib/core/event.js';
import { captureStore } from '../../lib/formats/opencode/capture.js';
import { owner } from './owner.js';

export function captureKilo(ref: SessionRef, options: CaptureOptions = {}): AsyncGenerator<SpEvent> {
  return captureStore(owner, ref, options);
}
