/**
 * The langchain tool the agent sees for one MCP tool.
 *
 * It is bound to the server's connection, not to one MCP session, so it keeps working after the server
 * is restarted. Whatever goes wrong in the call (the tool reports an error, the server crashes or hangs,
 * the result is not valid MCP) comes back as an error ToolMessage naming the tool and the server, so the
 * model can react and the run goes on. Results are flattened to text: chat APIs accept only text in
 * tool messages, and MCP servers often wrap their text in structured blocks.
 */
import { ToolMessage } from "@langchain/core/messages";
import { DynamicStructuredTool } from "@langchain/core/tools";
import type { McpServerConnection, McpToolInfo } from "./server-connection.js";

/** Extra text in the description, so the model knows where a tool comes from. */
function describeTool(info: McpToolInfo, server: string): string {
  const text = info.description.trim() || `The ${info.name} tool.`;
  return `${text}\n(MCP server: ${server})`;
}

/** Builds the agent-facing tool `name` for `info` on `connection`. */
export function createMcpTool(connection: McpServerConnection, info: McpToolInfo, name: string): DynamicStructuredTool {
  const server = connection.spec.name;
  return new DynamicStructuredTool({
    name,
    description: describeTool(info, server),
    schema: info.schema,
    responseFormat: "content_and_artifact",
    metadata: { mcp_server: server, mcp_tool: info.name },
    func: async (args: Record<string, unknown>, _runManager, config) => {
      const toolCallId = (config as { toolCall?: { id?: string } } | undefined)?.toolCall?.id;
      try {
        // Artifacts (structured copies, base64 media) are dropped: they would only grow the checkpoints.
        const [content] = await connection.call(info.name, args, config?.signal);
        return [contentToText(content), undefined];
      } catch (error) {
        const text = `Error: MCP tool ${name} (server ${server}) failed: ${(error as Error).message}`;
        if (!toolCallId) return [text, undefined];
        return [new ToolMessage({ content: text, tool_call_id: toolCallId, name, status: "error" }), undefined];
      }
    },
  });
}

/** Flattens MCP content (a string, one block, or a list of blocks) into text for the model. */
export function contentToText(content: unknown): string {
  if (typeof content === "string") return content;
  const blocks = Array.isArray(content) ? content : [content];
  const parts = blocks.map((block) => {
    if (typeof block === "string") return block;
    if (block === null || typeof block !== "object") return String(block);
    const {
      type,
      text,
      mime_type: mimeType,
      url,
    } = block as { type?: string; text?: unknown; mime_type?: string; url?: string };
    if (typeof text === "string") return text;
    if (type === "image" || type === "image_url")
      return `[image${mimeType ? ` ${mimeType}` : ""} returned by the tool; not shown]`;
    if (type === "audio") return `[audio${mimeType ? ` ${mimeType}` : ""} returned by the tool; not shown]`;
    if (type === "file" && url) return `[resource ${url}]`;
    return JSON.stringify(block);
  });
  return parts.join("\n") || "(the tool returned no content)";
}
