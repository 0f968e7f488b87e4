// Tool use written as text (docs/formats/cline-tasks.md §4): before native tool calling, the
// extensions asked the model to answer with one XML-style element per tool, `<read_file><path>a.ts
// </path></read_file>`, and answered with a user message whose text blocks start `[read_file for
// 'a.ts'] Result:` followed by the result. The assistant text keeps its prose; the element becomes a
// tool call, the answer its result, so a relay sees them as calls like any other.

/** One tool element found in an assistant's text. */
export interface TextToolCall {
  name: string;
  input: Record<string, string>;
  /** The text around the element (prose before it, anything after it). */
  before: string;
  after: string;
}

const PARAMETER = /<([a-z_][a-z0-9_]*)>([\s\S]*?)<\/\1>/g;

/**
 * The first element of a known tool in `text`, with its parameters (each a child element; the
 * values are taken as written, one leading and trailing newline trimmed). Only names in `tools` count,
 * so prose that shows XML is left alone.
 */
export function findTextToolCall(text: string, tools: ReadonlySet<string>): TextToolCall | undefined {
  const element = /<([a-z_][a-z0-9_]*)>([\s\S]*?)<\/\1>/g;
  for (let m = element.exec(text); m; m = element.exec(text)) {
    if (!tools.has(m[1])) continue;
    const input: Record<string, string> = {};
    for (const p of m[2].matchAll(PARAMETER)) input[p[1]] = p[2].replace(/^\n/, '').replace(/\n$/, '');
    return { name: m[1], input, before: text.slice(0, m.index).trimEnd(), after: text.slice(m.index + m[0].length).trim() };
  }
  return undefined;
}

/**
 * The header the extensions put before a text-mode result: `[name]` or `[name for '…']`, then
 * ` Result:`. The quoted argument may hold `]` itself (a command such as `jq '.[0]'`), so it runs to
 * the first `] Result:`.
 */
const RESULT_HEADER = /^\[([a-z_][a-z0-9_]*)(?: for [\s\S]*?)?\] Result:\s*/;

/** A text block that opens a text-mode tool result: the tool's name and the text after the header. */
export function textToolResultHeader(text: string): { name: string; rest: string } | undefined {
  const m = RESULT_HEADER.exec(text);
  return m ? { name: m[1], rest: text.slice(m[0].length) } : undefined;
}
