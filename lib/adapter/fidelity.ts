// The level capture puts on an event (docs/design.md §3), read from the adapter's fidelity table:
// the table is the declaration, so an adapter's levelOf is made from it, never written beside it.
import type { Level } from '../core/event.js';
import type { FidelityTable } from './interface.js';

/** levelOf for a table: the listed type's level; a type the table does not list is native-only (2). */
export function levelsOf(table: FidelityTable): (type: string) => Level {
  return (type) => (Object.hasOwn(table, type) ? table[type].level : 2);
}
