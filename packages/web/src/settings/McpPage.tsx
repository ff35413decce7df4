/**
 * The MCP page: the servers the harness would connect (config.yaml's and `extensions_config.json`'s),
 * each with a switch, and, when the server allows writes (`server.mcp_config_writes`), add, edit and
 * remove for the file's servers. Every change goes to `/api/mcp/config/servers/{name}` and the page
 * shows the list the server answered with; a refusal (a bad entry, a command not allowed) shows the
 * server's reason and the form keeps what was typed. The harness connects changes on its next start.
 */
import { Pencil, Plus, Trash2 } from "lucide-react";
import { useCallback, useEffect, useState } from "react";
import { apiFetch, errorDetail } from "../api";
import { t, useLocale } from "../i18n";
import { EMPTY_FORM, entryOf, formOf, type McpForm, type McpListing, type McpServer } from "./mcp";

/** Props of {@link McpPage}. */
export interface McpPageProps {
  apiKey: string | undefined;
}

/** Lists MCP servers with switches, and edits them when the server allows it. */
export function McpPage({ apiKey }: McpPageProps) {
  useLocale();
  const [listing, setListing] = useState<McpListing>();
  const [error, setError] = useState<string>();
  const [restart, setRestart] = useState(false);
  const [form, setForm] = useState<{ form: McpForm; editing?: string; enabled: boolean }>();
  const [confirming, setConfirming] = useState<string>();

  /** Calls a route that answers the listing; returns false (and shows why) when it was refused. */
  const call = useCallback(
    async (pathname: string, init?: RequestInit) => {
      try {
        const answer = (await (await apiFetch(pathname, apiKey, init)).json()) as McpListing;
        setListing(answer);
        if (answer.restart_required) setRestart(true);
        setError(undefined);
        return true;
      } catch (failure) {
        setError(errorDetail(failure));
        return false;
      }
    },
    [apiKey],
  );
  useEffect(() => {
    void call("/mcp/config");
  }, [call]);

  const one = (name: string) => `/mcp/config/servers/${encodeURIComponent(name)}`;
  const json = (method: string, body: unknown): RequestInit => ({
    method,
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const save = async () => {
    if (!form) return;
    const checked = entryOf(form.form, form.enabled);
    if ("error" in checked) return setError(checked.error);
    if (await call(one(checked.name), json("PUT", checked.entry))) setForm(undefined);
  };

  const writable = listing?.writable ?? false;
  const servers = Object.entries(listing?.mcp_servers ?? {}).sort(([a], [b]) => a.localeCompare(b));
  return (
    <section className="settings-page" aria-label={t("settings.tab.mcp")}>
      {error && (
        <p className="error-text small" role="alert" data-testid="mcp-error">
          {error}
        </p>
      )}
      {restart && (
        <p className="notice small" role="status">
          {t("mcp.restart")}
        </p>
      )}
      {listing && !writable && <p className="muted small">{t("mcp.readOnly")}</p>}
      {listing === undefined ? (
        !error && <p className="muted small">{t("mcp.loading")}</p>
      ) : servers.length === 0 ? (
        <p className="muted small">{t("mcp.empty")}</p>
      ) : (
        <ul className="skills">
          {servers.map(([name, server]) => (
            <li key={name} className="skill" data-testid="mcp-server" data-name={name}>
              <ServerRow
                name={name}
                server={server}
                canChange={writable && server.editable !== false}
                onToggle={(enabled) => void call(one(name), json("PATCH", { enabled }))}
                onEdit={() => setForm({ form: formOf(name, server), editing: name, enabled: server.enabled })}
                onRemove={() => setConfirming(name)}
              />
              {confirming === name && (
                <div className="row" role="alertdialog" aria-label={t("mcp.removeConfirm", { name })}>
                  <span className="small">{t("mcp.removeConfirm", { name })}</span>
                  <button
                    type="button"
                    className="danger"
                    onClick={() => {
                      setConfirming(undefined);
                      void call(one(name), { method: "DELETE" });
                    }}
                  >
                    {t("mcp.removeButton")}
                  </button>
                  <button type="button" onClick={() => setConfirming(undefined)}>
                    {t("common.keep")}
                  </button>
                </div>
              )}
            </li>
          ))}
        </ul>
      )}
      {writable &&
        (form ? (
          <ServerForm
            value={form.form}
            editing={form.editing}
            onChange={(next) => setForm({ ...form, form: next })}
            onSave={() => void save()}
            onCancel={() => (setForm(undefined), setError(undefined))}
          />
        ) : (
          <button type="button" onClick={() => setForm({ form: EMPTY_FORM, enabled: true })}>
            <Plus size={14} aria-hidden /> {t("mcp.add")}
          </button>
        ))}
    </section>
  );
}

function ServerRow({
  name,
  server,
  canChange,
  onToggle,
  onEdit,
  onRemove,
}: {
  name: string;
  server: McpServer;
  canChange: boolean;
  onToggle: (enabled: boolean) => void;
  onEdit: () => void;
  onRemove: () => void;
}) {
  const where = server.type === "stdio" ? [server.command, ...(server.args ?? [])].join(" ") : server.url;
  return (
    <div className="row mcp-row">
      <label className="row">
        <input
          type="checkbox"
          // biome-ignore lint/a11y/useAriaPropsForRole: a native checkbox carries its checked state
          role="switch"
          aria-label={t("mcp.enable", { name })}
          checked={server.enabled}
          disabled={!canChange}
          onChange={(event) => onToggle(event.target.checked)}
        />
        <span>
          <strong>{name}</strong> <span className="muted small">{server.type}</span>
          {server.editable === false && <span className="muted small"> · {t("mcp.fromYaml")}</span>}
          {where && <span className="muted small skill-description mono">{where}</span>}
          {server.description && <span className="muted small skill-description">{server.description}</span>}
          {server.reason && (
            <span className="error-text small skill-description">{t("mcp.unused", { reason: server.reason })}</span>
          )}
        </span>
      </label>
      {canChange && (
        <span className="row-buttons">
          <button type="button" className="icon-btn" aria-label={t("mcp.edit", { name })} onClick={onEdit}>
            <Pencil size={14} />
          </button>
          <button type="button" className="icon-btn" aria-label={t("mcp.remove", { name })} onClick={onRemove}>
            <Trash2 size={14} />
          </button>
        </span>
      )}
    </div>
  );
}

function ServerForm({
  value,
  editing,
  onChange,
  onSave,
  onCancel,
}: {
  value: McpForm;
  editing?: string;
  onChange: (form: McpForm) => void;
  onSave: () => void;
  onCancel: () => void;
}) {
  const field = (key: keyof McpForm) => ({
    value: value[key],
    onChange: (event: { target: { value: string } }) => onChange({ ...value, [key]: event.target.value }),
  });
  const title = editing ? t("mcp.formEdit", { name: editing }) : t("mcp.formAdd");
  return (
    <form
      className="mcp-form"
      aria-label={title}
      onSubmit={(event) => {
        event.preventDefault();
        onSave();
      }}
    >
      <strong>{title}</strong>
      <label className="field">
        {t("mcp.name")}
        <input {...field("name")} readOnly={editing !== undefined} spellCheck={false} />
      </label>
      <label className="field">
        {t("mcp.type")}
        <select {...field("type")}>
          <option value="http">HTTP</option>
          <option value="sse">SSE</option>
          <option value="stdio">stdio</option>
        </select>
      </label>
      {value.type === "stdio" ? (
        <>
          <label className="field">
            {t("mcp.command")}
            <input {...field("command")} className="mono" spellCheck={false} />
          </label>
          <label className="field">
            {t("mcp.args")}
            <textarea {...field("args")} className="mono" spellCheck={false} />
          </label>
          <label className="field">
            {t("mcp.env")}
            <textarea {...field("env")} className="mono" spellCheck={false} />
          </label>
        </>
      ) : (
        <>
          <label className="field">
            {t("mcp.url")}
            <input {...field("url")} className="mono" spellCheck={false} />
          </label>
          <label className="field">
            {t("mcp.headers")}
            <textarea {...field("headers")} className="mono" spellCheck={false} />
          </label>
        </>
      )}
      <label className="field">
        {t("mcp.description")}
        <input {...field("description")} />
      </label>
      {editing && <span className="muted small">{t("mcp.maskedHint")}</span>}
      <div className="row-buttons">
        <button type="submit" className="primary">
          {t("mcp.save")}
        </button>
        <button type="button" onClick={onCancel}>
          {t("common.cancel")}
        </button>
      </div>
    </form>
  );
}
