/**
 * Channel routes (contract §B.4): what DeerFlow's frontend reads for its Channels section, and the
 * Slack Events API's request URL.
 *
 * Our channels are set up in config.yaml, not in the browser (docs/channels.md), so every provider is
 * listed with what the file and the running bot say: `configured` when its section is present,
 * `connection_status: "connected"` while it receives messages, and otherwise an `unavailable_reason`
 * saying what to do. There are no credential fields to fill in and no binding codes; the routes that
 * would change them answer 409 with where to make the change instead.
 */
import type { Context } from "hono";
import type { RegisterRoutes, ServerContext } from "../context.js";
import { callerOf } from "../auth/caller.js";
import type { ChannelName } from "../channels/index.js";
import { CHANNEL_NAMES } from "../channels/types.js";
import { HttpError, notFound } from "../http/errors.js";

const DISPLAY_NAMES: Record<ChannelName, string> = { telegram: "Telegram", slack: "Slack" };
/** How each platform's messages reach us. */
const RECEIVING: Record<ChannelName, string> = { telegram: "long_polling", slack: "events_api" };

function channelName(c: Context): ChannelName {
  const name = c.req.param("provider") ?? "";
  if (!(CHANNEL_NAMES as readonly string[]).includes(name))
    throw notFound(`Channel provider "${name.slice(0, 40)}" (there are: ${CHANNEL_NAMES.join(", ")})`);
  return name as ChannelName;
}

/** Why a provider cannot take messages now, or null when it is running. */
function unavailableReason(context: ServerContext, name: ChannelName): string | null {
  const display = DISPLAY_NAMES[name];
  if (!context.channels.configured(name))
    return `${display} is not set up. Add channels.${name} to config.yaml (see docs/channels.md) and restart the server.`;
  const status = context.channels.status(name);
  if (status.running) return null;
  return `${display} is configured but not running${status.error ? `: ${status.error}` : ""}. Check channels.${name} in config.yaml and the server log.`;
}

function describeProvider(context: ServerContext, name: ChannelName): Record<string, unknown> {
  const reason = unavailableReason(context, name);
  return {
    provider: name,
    display_name: DISPLAY_NAMES[name],
    enabled: true,
    configured: context.channels.configured(name),
    connectable: false,
    unavailable_reason: reason,
    auth_mode: "config_file",
    connection_status: reason === null ? "connected" : "not_connected",
    credential_fields: [],
    credential_values: {},
  };
}

function describeConnection(context: ServerContext, name: ChannelName): Record<string, unknown> {
  const status = context.channels.status(name);
  return {
    id: name,
    provider: name,
    status: status.running ? "connected" : "error",
    external_account_id: status.account?.id ?? null,
    external_account_name: status.account?.name ?? null,
    workspace_id: status.workspace?.id ?? null,
    workspace_name: status.workspace?.name ?? null,
    scopes: [],
    metadata: { receiving: RECEIVING[name], error: status.error },
  };
}

/** The answer of every route that would change a channel from the browser. */
function setUpInConfig(what: string): never {
  throw new HttpError(
    409,
    `${what} is not done here: channels are set up in config.yaml (channels.telegram, channels.slack; see docs/channels.md), then the server is restarted.`,
  );
}

/** Registers the channel routes. */
export const registerChannelRoutes: RegisterRoutes = (api, context) => {
  api.get("/channels/providers", (c) =>
    c.json({ enabled: true, providers: CHANNEL_NAMES.map((name) => describeProvider(context, name)) }),
  );
  api.get("/channels/connections", (c) =>
    c.json({
      connections: CHANNEL_NAMES.filter((name) => context.channels.configured(name)).map((name) =>
        describeConnection(context, name),
      ),
    }),
  );
  api.get("/channels", (c) =>
    c.json({
      service_running: CHANNEL_NAMES.some((name) => context.channels.status(name).running),
      channels: Object.fromEntries(
        CHANNEL_NAMES.map((name) => {
          const status = context.channels.status(name);
          return [name, { enabled: context.channels.configured(name), running: status.running, error: status.error }];
        }),
      ),
    }),
  );
  api.post("/channels/:provider/restart", async (c) => {
    const name = channelName(c);
    if (!callerOf(c).admin) throw new HttpError(403, "Only an admin may restart a channel.");
    if (!context.channels.configured(name)) setUpInConfig(`Starting ${DISPLAY_NAMES[name]}`);
    const status = await context.channels.restart(name);
    return c.json({
      success: status.running,
      message: status.running
        ? `${DISPLAY_NAMES[name]} restarted.`
        : `${DISPLAY_NAMES[name]} did not start: ${status.error ?? "see the server log"}.`,
    });
  });
  api.post("/channels/:provider/connect", (c) => setUpInConfig(`Connecting ${DISPLAY_NAMES[channelName(c)]}`));
  api.post("/channels/:provider/runtime-config", (c) =>
    setUpInConfig(`Setting ${DISPLAY_NAMES[channelName(c)]}'s credentials`),
  );
  api.delete("/channels/:provider/runtime-config", (c) =>
    setUpInConfig(`Removing ${DISPLAY_NAMES[channelName(c)]}'s credentials`),
  );
  api.delete("/channels/connections/:id", () => setUpInConfig("Disconnecting a channel"));

  api.post("/channels/slack/events", async (c) => {
    const slack = context.channels.slack();
    if (!slack) throw notFound("The Slack channel (add channels.slack to config.yaml, see docs/channels.md)");
    const answer = slack.handleEvent(await c.req.text(), (name) => c.req.header(name));
    return c.json(answer.body, answer.status);
  });
};
