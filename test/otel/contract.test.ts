// The shared adapter contract suite on the OpenTelemetry log exports (JSONL: the default
// injectors): the hand-written fixtures and the exports recorded from the pinned clients
// (fixtures/otel/recorded, scripts/record-otel.mjs). Read-only (no round trip) and captured whole
// (no incremental test: --cursor is refused).
import { otel } from '../../adapters/otel/index.js';
import { testAdapter } from '../contract/testAdapter.js';

testAdapter(otel, {
  fixtures: ['fixtures/otel/claude-code-logs.jsonl', 'fixtures/otel/codex-logs.jsonl'],
  home: 'fixtures/otel',
  incremental: false,
  roundTrip: false,
});

testAdapter(otel, {
  fixtures: ['fixtures/otel/recorded/claude-code-2.1.197.jsonl', 'fixtures/otel/recorded/codex-0.171.0.jsonl'],
  home: 'fixtures/otel/recorded',
  incremental: false,
  roundTrip: false,
});
