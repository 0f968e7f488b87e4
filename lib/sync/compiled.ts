// `sp-sync log --compiled SESSION`: the handoffs compiled from a stored session, as its signed
// manifest records them (lib/store/compiled.ts): NDJSON, or a table on a terminal.
import { EXIT_OK } from '../cli/diagnostics.js';
import { toIso } from '../core/event.js';
import { NdjsonWriter } from '../core/ndjson.js';
import { Store, resolveStoreDir } from '../store/index.js';
import type { CompiledContextEntry } from '../store/compiled.js';

export async function compiledLogCommand(args: { store?: string; json: boolean; session: string }): Promise<number> {
  const store = Store.open(resolveStoreDir(args.store), { readonly: true });
  try {
    const id = store.resolveSession(args.session);
    const listed = store.manifest(id)?.compiled_context;
    const entries: CompiledContextEntry[] = Array.isArray(listed) ? listed : [];
    const { wantsTable, printTable } = await import('../term/listing.js');
    if (wantsTable({ json: args.json })) {
      printTable(entries, [
        { header: 'SEQ', align: 'right', cell: (e) => String(e.seq) },
        { header: 'TARGET', cell: (e) => e.target },
        { header: 'FORMAT', cell: (e) => e.format ?? '-' },
        { header: 'TOKENS', align: 'right', cell: (e) => (e.budget !== null ? `${e.tokens}/${e.budget}` : String(e.tokens)) },
        { header: 'COMPILED', cell: (e) => (e.ts !== null ? toIso(e.ts).slice(0, 16).replace('T', ' ') : '-') },
        { header: 'TEXT SHA256', flex: true, cell: (e) => e.sha256 },
      ], { empty: `no handoff compiled from ${id} is stored` });
      return EXIT_OK;
    }
    const out = new NdjsonWriter(process.stdout);
    for (const entry of entries) await out.writeLine(JSON.stringify({ session: id, ...entry }));
    await out.end();
    return EXIT_OK;
  } finally {
    store.close();
  }
}
