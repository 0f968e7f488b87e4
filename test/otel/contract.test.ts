// The shared adapter contract suite on the OpenTelemetry log exports (JSONL: the default
// injectors). Read-only (no round trip) and captured whole (no incremental test: --cursor is refused).
import { otel } from '../../adapters/otel/index.js';
import { testAdapter } from '../contract/testAdapter.js';

testAdapter(otel, {
  fixtures: ['fixtures/otel/claude-code-logs.jsonl', 'fixtures/otel/codex-logs.jsonl'],
  home: 'fixtures/otel',
  incremental: false,
  roundTrip: false,
});
