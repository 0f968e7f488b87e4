// The OpenTelemetry adapter (read-only): agent sessions from the telemetry Claude Code and Codex
// export when it is enabled, as OTLP/JSON logs. Writing OTel is `sp-export otel` (lib/otel).
import type { Adapter } from '../../lib/adapter/interface.js';
import { lazyIterable, once } from '../../lib/adapter/lazy.js';
import { fidelity } from './fidelity.js';
import { HOME_ENV, defaultHome } from './paths.js';

const discovery = once(() => import('./discover.js'));
const capturing = once(() => import('./capture.js'));

export const otel: Adapter = {
  id: 'otel',
  displayName: 'OpenTelemetry export',
  homeEnv: HOME_ENV,
  defaultHome,
  discover: (options) => lazyIterable(discovery, (m) => m.discoverExports(options)),
  open: async (path) => (await discovery()).openExport(path),
  find: async (id, options) => (await discovery()).findExport(id, options),
  capture: (ref, options) => lazyIterable(capturing, (m) => m.captureOtel(ref, options)),
  label: 'OpenTelemetry telemetry',
  capabilities: {
    tree: false,
    images: { userMessage: false, toolResult: false },
    thinking: 'provider',
    incremental: { whyNot: 'an export is captured whole' },
    sameId: { whyNot: 'OpenTelemetry exports are read, not written' },
  },
  fidelity,
};

export default otel;
