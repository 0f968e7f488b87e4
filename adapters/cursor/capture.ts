// `capture` for Cursor: the ref's path says which store it is (paths.ts kindOf).
import type { CaptureOptions, SessionRef } from '../../lib/adapter/interface.js';
import type { SpEvent } from '../../lib/core/event.js';
import { kindOf, splitLocator } from './paths.js';
import { captureStore } from './store-db.js';
import { captureTranscript } from './transcript.js';
import { captureIde } from './vscdb.js';

export async function* captureCursor(ref: SessionRef, options: CaptureOptions = {}): AsyncGenerator<SpEvent> {
  const kind = kindOf(ref.path);
  if (kind === 'transcript') yield* captureTranscript(ref, options);
  else if (kind === 'ide-global') {
    const { file, composer } = splitLocator(ref.path);
    yield* captureIde(file, composer, options);
  } else yield* captureStore(ref, options);
}
