/**
 * The account pages (loaded on first visit): API tokens, the password, and for admins the users.
 * Each is a URL (`/settings?tab=…`), so a reload or a shared link opens the same page.
 */
import { t, useLocale } from "../i18n";
import { accountUrl, type AccountTab, navigate } from "../router";
import { isAdmin, type Me } from "./account-api";
import { PasswordForm } from "./PasswordForm";
import { TokensPage } from "./TokensPage";
import { UsersPage } from "./UsersPage";

/** Props of {@link AccountPage}. */
export interface AccountPageProps {
  tab: AccountTab;
  user: Me;
  apiKey: string | undefined;
}

/** Renders the page for `tab` with links to the others. */
export function AccountPage({ tab, user, apiKey }: AccountPageProps) {
  useLocale();
  const admin = isAdmin(user);
  const tabs: { id: AccountTab; label: string }[] = [
    { id: "tokens", label: t("account.tokens") },
    { id: "password", label: t("account.password") },
    ...(admin ? [{ id: "users" as const, label: t("account.users") }] : []),
  ];
  const shown = tab === "users" && !admin ? "tokens" : tab;
  return (
    <div className="account-page">
      <nav className="tabs" aria-label={t("account.pages")}>
        {tabs.map((item) => (
          <a
            key={item.id}
            href={accountUrl(item.id)}
            className={item.id === shown ? "tab active" : "tab"}
            aria-current={item.id === shown ? "page" : undefined}
            onClick={(event) => {
              event.preventDefault();
              navigate(accountUrl(item.id));
            }}
          >
            {item.label}
          </a>
        ))}
      </nav>
      {shown === "tokens" && <TokensPage apiKey={apiKey} />}
      {shown === "password" && <PasswordForm apiKey={apiKey} hasPassword={user.has_password !== false} />}
      {shown === "users" && <UsersPage apiKey={apiKey} me={user} />}
    </div>
  );
}
