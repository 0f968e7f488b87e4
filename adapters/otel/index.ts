// The OpenTelemetry adapter (read-only): agent sessions from the telemetry Claude Code and Codex
// export when it is enabled, as OTLP/JSON logs. Writing OTel is `sp-export otel` (lib/otel).
import type { Adapter } from '../../lib/adapter/interface.js';
import { lazyCapture, lazyDiscovery } from '../../lib/adapter/lazy.js';
import { fidelity } from './fidelity.js';
import { HOME_ENV, defaultHome } from './paths.js';

export const otel: Adapter = {
  id: 'otel',
  displayName: 'OpenTelemetry export',
  homeEnv: HOME_ENV,
  defaultHome,
  ...lazyDiscovery(() => import('./discover.js'), (m) => m.discoverExports, (m) => m.openExport, (m) => m.findExport),
  capture: lazyCapture(() => import('./capture.js'), (m) => m.captureOtel),
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
