// A shell tool's result in the labelled layout one family of clients writes (`Output: …`, an
// optional `Error: …`, `Exit Code: N`, sometimes inside `<untrusted_context>`), made plain for a
// client whose shell tool returns the output itself. Shared by the vocabularies that read it.

/** The output, and an error when the exit code is not 0; undefined when the text is not in that layout. */
export function labelledShellOutput(text: string): { text: string; isError?: boolean } | undefined {
  const inner = /^<untrusted_context>\n?([\s\S]*?)\n?<\/untrusted_context>\s*$/.exec(text)?.[1] ?? text;
  const m = /(?:^|\n)Output: ([\s\S]*?)(?:\nError: [\s\S]*?)?\nExit Code: (-?\d+|\(none\))/.exec(inner);
  if (!m) return undefined;
  const code = Number(m[2]);
  return { text: m[1] === '(empty)' ? '' : m[1], ...(Number.isFinite(code) && code !== 0 ? { isError: true } : {}) };
}
