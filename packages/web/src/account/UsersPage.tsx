/**
 * The admin's users page: every user with their role, today's usage against their limits, and
 * actions: create a user (their first API token shown once), change a role, edit limits, and remove
 * a user with everything they own (after a confirmation that says so). Admins manage accounts here;
 * nothing on this page reads anyone's threads.
 */
import { Plus, SlidersHorizontal, Trash2 } from "lucide-react";
import { Fragment, useCallback, useEffect, useState } from "react";
import { errorDetail } from "../api";
import { t, useLocale } from "../i18n";
import { type AdminUser, createUser, listUsers, type Me, type Quotas, removeUser, updateUser } from "./account-api";
import { QuotaEditor } from "./QuotaEditor";
import { usageOf } from "./quotas";
import { SecretOnce } from "./SecretOnce";

/** Props of {@link UsersPage}. */
export interface UsersPageProps {
  apiKey: string | undefined;
  me: Me;
}

/** Renders the users page. */
export function UsersPage({ apiKey, me }: UsersPageProps) {
  useLocale();
  const [list, setList] = useState<{ users: AdminUser[]; default_quotas: Quotas }>();
  const [error, setError] = useState<string>();
  const [created, setCreated] = useState<{ name: string; token: string }>();
  const [editing, setEditing] = useState<string>();
  const [confirming, setConfirming] = useState<string>();

  const load = useCallback(async () => {
    try {
      setList(await listUsers(apiKey));
    } catch (failure) {
      setError(errorDetail(failure));
    }
  }, [apiKey]);
  useEffect(() => {
    void load();
  }, [load]);

  /** Runs a change, then shows the list as the server now has it (or why it refused). */
  const change = async (action: () => Promise<unknown>): Promise<boolean> => {
    let ok = true;
    try {
      await action();
      setError(undefined);
    } catch (failure) {
      setError(errorDetail(failure));
      ok = false;
    }
    await load();
    return ok;
  };

  return (
    <section className="account-section" aria-label={t("account.users")}>
      <h2>{t("account.users")}</h2>
      {created ? (
        <SecretOnce
          label={t("users.firstToken", { name: created.name })}
          secret={created.token}
          onDone={() => setCreated(undefined)}
        />
      ) : (
        <NewUserForm
          onCreate={(user) =>
            change(async () => {
              const answer = await createUser(apiKey, user);
              setCreated({ name: answer.name ?? user.name, token: answer.token });
            })
          }
        />
      )}
      {error && (
        <p className="error-text" role="alert">
          {error}
        </p>
      )}
      {list === undefined && !error && <p className="muted">{t("common.loading")}</p>}
      {list && (
        <div className="table-wrap">
          <table className="data-table users">
            <thead>
              <tr>
                <th>{t("users.colUser")}</th>
                <th>{t("users.colRole")}</th>
                <th>{t("users.colRuns")}</th>
                <th>{t("users.colTokens")}</th>
                <th>{t("users.colUploaded")}</th>
                <th>{t("users.colRunning")}</th>
                <th>
                  <span className="visually-hidden">{t("common.actions")}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.users.map((user) => {
                const self = user.id === me.id;
                const limits = user.effective_quotas;
                return (
                  <Fragment key={user.id}>
                    <tr data-testid="user-row" data-user={user.name}>
                      <td>
                        {user.name}
                        {user.email && user.email !== user.name && <div className="muted small">{user.email}</div>}
                        {self && <span className="muted small">{t("users.you")}</span>}
                      </td>
                      <td>
                        <select
                          aria-label={t("users.roleOf", { name: user.name })}
                          value={user.admin ? "admin" : "user"}
                          disabled={self}
                          title={self ? t("users.ownRole") : undefined}
                          onChange={(event) =>
                            void change(() => updateUser(apiKey, user.id, { admin: event.target.value === "admin" }))
                          }
                        >
                          <option value="user">{t("users.roleUser")}</option>
                          <option value="admin">{t("users.roleAdmin")}</option>
                        </select>
                      </td>
                      <td>{usageOf(user.usage.runs, limits.runs_per_day)}</td>
                      <td>{usageOf(user.usage.tokens, limits.tokens_per_day)}</td>
                      <td>{usageOf(user.usage.upload_bytes, limits.upload_bytes_per_day, true)}</td>
                      <td>{usageOf(user.usage.active_runs, limits.concurrent_runs)}</td>
                      <td className="actions">
                        <button
                          type="button"
                          className="icon-btn"
                          aria-label={t("users.editLimits", { name: user.name })}
                          onClick={() => setEditing(editing === user.id ? undefined : user.id)}
                        >
                          <SlidersHorizontal size={14} />
                        </button>
                        {!self && (
                          <button
                            type="button"
                            className="icon-btn"
                            aria-label={t("users.remove", { name: user.name })}
                            onClick={() => setConfirming(user.id)}
                          >
                            <Trash2 size={14} />
                          </button>
                        )}
                      </td>
                    </tr>
                    {confirming === user.id && (
                      <tr>
                        <td colSpan={7}>
                          <div
                            className="confirm"
                            role="alertdialog"
                            aria-label={t("users.removeQuestion", { name: user.name })}
                          >
                            <span>{t("users.removeConfirm", { name: user.name })}</span>
                            <button
                              type="button"
                              className="danger"
                              onClick={() => {
                                setConfirming(undefined);
                                void change(() => removeUser(apiKey, user.id));
                              }}
                            >
                              {t("users.removeUser")}
                            </button>
                            <button type="button" onClick={() => setConfirming(undefined)}>
                              {t("common.keep")}
                            </button>
                          </div>
                        </td>
                      </tr>
                    )}
                    {editing === user.id && (
                      <tr>
                        <td colSpan={7}>
                          <QuotaEditor
                            name={user.name}
                            effective={limits}
                            defaults={list.default_quotas}
                            onCancel={() => setEditing(undefined)}
                            onSave={(quotas) => {
                              setEditing(undefined);
                              if (Object.keys(quotas).length > 0)
                                void change(() => updateUser(apiKey, user.id, { quotas }));
                            }}
                          />
                        </td>
                      </tr>
                    )}
                  </Fragment>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** The "new user" form: name (or email), an optional password, and the admin role. */
function NewUserForm({
  onCreate,
}: {
  onCreate: (user: { name: string; password?: string; admin: boolean }) => Promise<boolean>;
}) {
  useLocale();
  const [name, setName] = useState("");
  const [password, setPassword] = useState("");
  const [admin, setAdmin] = useState(false);
  return (
    <form
      className="inline-form"
      aria-label={t("users.newUser")}
      onSubmit={(event) => {
        event.preventDefault();
        void onCreate({ name: name.trim(), ...(password ? { password } : {}), admin }).then((ok) => {
          if (!ok) return;
          setName("");
          setPassword("");
          setAdmin(false);
        });
      }}
    >
      <input
        aria-label={t("users.newName")}
        placeholder={t("users.namePlaceholder")}
        autoComplete="off"
        value={name}
        onChange={(event) => setName(event.target.value)}
        required
      />
      <input
        type="password"
        aria-label={t("users.newPassword")}
        placeholder={t("users.passwordPlaceholder")}
        autoComplete="new-password"
        value={password}
        onChange={(event) => setPassword(event.target.value)}
      />
      <label className="row">
        <input type="checkbox" checked={admin} onChange={(event) => setAdmin(event.target.checked)} />{" "}
        {t("users.admin")}
      </label>
      <button type="submit" className="primary" disabled={!name.trim()}>
        <Plus size={14} aria-hidden /> {t("users.create")}
      </button>
    </form>
  );
}
