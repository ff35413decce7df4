/**
 * Per-tool policies (`tool_policies:` in config): some tools must never run in a deployment, and some
 * only after a person says yes (a `bash` that can delete files, an MCP tool that sends mail).
 *
 * `deny` leaves the tool out of every model request, and answers a call made anyway (a tool named in
 * history or in a skill) with an error result the model can read, so it tries something else instead of
 * the run failing. `approval` pauses the run with a LangGraph interrupt carrying the tool's name and
 * arguments (an {@link ApprovalRequest}); the run is continued with `Command({ resume: { approved,
 * reason? } })` and then runs or refuses the call. Each tool call is its own task in the tool step, so
 * two calls awaiting approval are two interrupts: one resume value answers both, a map of interrupt id to
 * value answers each.
 */
import { ToolMessage } from "@langchain/core/messages";
import { Command, interrupt } from "@langchain/langgraph";
import { createMiddleware } from "langchain";
import picomatch from "picomatch";
import type { Logger } from "../logger.js";

/** What may happen when the model calls a tool. */
export type ToolPolicy = "allow" | "deny" | "approval";

/**
 * The interrupt value of a call waiting for approval. `action_requests` and `review_configs` repeat it in
 * the shape of langchain's human-in-the-loop middleware, so clients built for that (agent-chat-ui's
 * approve/reject card) can answer it too.
 */
export interface ApprovalRequest {
  kind: "tool_approval";
  tool_name: string;
  tool_call_id: string;
  args: Record<string, unknown>;
  action_requests: { name: string; args: Record<string, unknown>; description: string }[];
  review_configs: { action_name: string; allowed_decisions: ("approve" | "reject")[] }[];
}

/** The answer a client resumes an approval interrupt with. */
export interface ApprovalDecision {
  approved: boolean;
  reason?: string;
}

/** Options of {@link toolPolicyMiddleware}. */
export interface ToolPolicyOptions {
  /** Tool name or glob (`*` any characters, `?` one) to policy; unmatched tools are allowed. */
  policies: Readonly<Record<string, ToolPolicy>>;
  /**
   * Whether `approval` may pause the run. False where nobody can answer (a subagent runs inside its
   * parent's tool call): such calls are refused with a note saying why.
   */
  canAsk?: boolean;
  logger?: Logger;
}

/**
 * The policy of a tool: its exact name first, else the longest matching glob (the most specific), else
 * `allow`.
 *
 * @example
 * policyFor("mcp_mail_send", { "mcp_*": "approval", mcp_mail_send: "deny" }); // "deny"
 * policyFor("bash", { "*": "approval" }); // "approval"
 * policyFor("ls", { bash: "deny" }); // "allow"
 */
export function policyFor(toolName: string, policies: Readonly<Record<string, ToolPolicy>>): ToolPolicy {
  return policyLookup(policies)(toolName);
}

/**
 * {@link policyFor} over one set of policies, with its globs compiled once (picomatch, as the `glob` tool
 * uses) and each tool's answer remembered: the middleware asks for every tool on every model call.
 */
function policyLookup(policies: Readonly<Record<string, ToolPolicy>>): (toolName: string) => ToolPolicy {
  const globs = Object.keys(policies)
    .filter((pattern) => /[*?]/.test(pattern))
    .sort((a, b) => b.length - a.length)
    .map((pattern) => ({ policy: policies[pattern]!, matches: picomatch(pattern, { dot: true }) }));
  const known = new Map<string, ToolPolicy>();
  return (toolName) => {
    let policy = known.get(toolName);
    if (policy === undefined) {
      policy = Object.hasOwn(policies, toolName)
        ? policies[toolName]!
        : (globs.find((glob) => glob.matches(toolName))?.policy ?? "allow");
      known.set(toolName, policy);
    }
    return policy;
  };
}

/**
 * Reads a resume value as a decision. `{ approved: true }`, a bare `true` and the human-in-the-loop shape
 * `{ decisions: [{ type: "approve" }] }` approve; `{ type: "reject", message }` declines with the message
 * as reason; anything else (an `edit`, a malformed value) refuses, failing closed, with a reason saying
 * what was received.
 */
export function readDecision(value: unknown): ApprovalDecision {
  if (value === true || value === false) return { approved: value };
  const decisions = (value as { decisions?: unknown } | null)?.decisions;
  if (Array.isArray(decisions) && decisions.length > 0) return readDecision(decisions[0]);
  const type = (value as { type?: unknown } | null)?.type;
  if (type === "approve") return { approved: true };
  if (type === "reject") {
    const message = (value as { message?: unknown }).message;
    return typeof message === "string" && message.trim()
      ? { approved: false, reason: message.trim() }
      : { approved: false };
  }
  if (value !== null && typeof value === "object" && typeof (value as { approved?: unknown }).approved === "boolean") {
    const { approved, reason } = value as { approved: boolean; reason?: unknown };
    return typeof reason === "string" && reason.trim() ? { approved, reason: reason.trim() } : { approved };
  }
  return {
    approved: false,
    reason: `the answer was not understood (expected {"approved": true|false, "reason"?: "..."}, got ${JSON.stringify(value) ?? String(value)})`,
  };
}

/**
 * The input that continues a run paused on interrupts: one value for all of them, or a map of interrupt
 * id to value. For callers (the CLI) that drive the graph without depending on LangGraph themselves.
 *
 * @example
 * await agent.invoke(resumeCommand({ approved: true }), { configurable: { thread_id } });
 */
export function resumeCommand(value: unknown): Command {
  return new Command({ resume: value });
}

/**
 * Applies `tool_policies` to every tool call (`wrapToolCall`). Sits just inside the tool-errors wrapper,
 * so a refused call never reaches the sandbox or the tool.
 *
 * @example
 * createAgent({ model, tools, middleware: [toolPolicyMiddleware({ policies: { bash: "approval" } })], checkpointer });
 */
export function toolPolicyMiddleware(options: ToolPolicyOptions) {
  const canAsk = options.canAsk ?? true;
  const policyOf = policyLookup(options.policies);
  return createMiddleware({
    name: "tool-policy",
    wrapModelCall: (request, handler) => {
      const tools = request.tools.filter((tool) => {
        const name = (tool as { name?: unknown }).name;
        return typeof name !== "string" || policyOf(name) !== "deny";
      });
      return tools.length === request.tools.length ? handler(request) : handler({ ...request, tools });
    },
    wrapToolCall: async (request, handler) => {
      const call = request.toolCall;
      const policy = policyOf(call.name);
      if (policy === "allow") return handler(request);
      const refuse = (content: string) =>
        new ToolMessage({ name: call.name, tool_call_id: call.id ?? "", status: "error", content });
      if (policy === "deny") {
        options.logger?.info(`refused a call to "${call.name}" (tool_policies: deny)`);
        return refuse(
          `Error: the tool "${call.name}" is not allowed here (tool_policies: deny). Do not call it again; use another tool or tell the user what you could not do.`,
        );
      }
      if (!canAsk) {
        options.logger?.info(`refused a call to "${call.name}": it needs approval, which cannot be asked here`);
        return refuse(
          `Error: the tool "${call.name}" needs the user's approval (tool_policies: approval), and a subagent cannot ask for it. Report back that this step needs "${call.name}" so the lead agent can call it.`,
        );
      }
      const args = call.args ?? {};
      const pending: ApprovalRequest = {
        kind: "tool_approval",
        tool_name: call.name,
        tool_call_id: call.id ?? "",
        args,
        action_requests: [
          {
            name: call.name,
            args,
            description: `The agent wants to run "${call.name}"; tool_policies asks for your approval.`,
          },
        ],
        review_configs: [{ action_name: call.name, allowed_decisions: ["approve", "reject"] }],
      };
      const decision = readDecision(interrupt(pending));
      if (decision.approved) {
        options.logger?.info(`the user approved a call to "${call.name}"`);
        return handler(request);
      }
      options.logger?.info(`the user declined a call to "${call.name}"`);
      const why = decision.reason ? ` Reason: ${decision.reason}.` : "";
      return refuse(
        `Error: the user declined this call to "${call.name}"; it did not run.${why} Do not repeat it unchanged; adjust the approach or ask the user how to proceed.`,
      );
    },
  });
}
