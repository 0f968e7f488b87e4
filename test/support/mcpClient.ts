// Calling sp-mcp's tools from a test through the SDK's client: the raw result, a success parsed
// from its last content block, or a refusal matched by its message.
import type { Client } from '@modelcontextprotocol/client';
import { expect } from 'vitest';

export type ToolResult = { isError?: boolean; content: Array<{ type: string; text: string }> };

/** The helpers over a client that the test file connects in its beforeAll (hence a getter). */
export function toolCalls(client: () => Client) {
  const call = async (name: string, args: Record<string, unknown>): Promise<ToolResult> => (await client().callTool({ name, arguments: args })) as ToolResult;
  const ok = async (name: string, args: Record<string, unknown>): Promise<any> => {
    const r = await call(name, args);
    expect(r.isError, r.content?.[0]?.text).toBeFalsy();
    return JSON.parse(r.content[r.content.length - 1].text);
  };
  const fails = async (name: string, args: Record<string, unknown>, message: RegExp): Promise<string> => {
    const r = await call(name, args);
    expect(r.isError, r.content?.[0]?.text).toBe(true);
    expect(r.content[0].text).toMatch(message);
    return r.content[0].text;
  };
  return { call, ok, fails };
}
