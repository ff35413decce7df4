/**
 * The account menu in the header, present only on a server with accounts: who is signed in, the
 * account pages (API tokens, password, and for admins the users), and Sign out.
 */
import { CircleUser, KeyRound, LogOut, Lock, Users } from "lucide-react";
import { useEffect, useRef, useState } from "react";
import { t, useLocale } from "../i18n";
import { accountUrl, type AccountTab, navigate } from "../router";
import { displayName, isAdmin, type Me } from "./account-api";

/** Props of {@link AccountMenu}. */
export interface AccountMenuProps {
  user: Me;
  onSignOut: () => void;
}

/** Renders the menu button and, when open, its items. */
export function AccountMenu({ user, onSignOut }: AccountMenuProps) {
  useLocale();
  const [open, setOpen] = useState(false);
  const anchor = useRef<HTMLDivElement>(null);
  // A click anywhere else closes the menu.
  useEffect(() => {
    if (!open) return;
    const close = (event: PointerEvent) => {
      if (!anchor.current?.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener("pointerdown", close);
    return () => document.removeEventListener("pointerdown", close);
  }, [open]);
  const go = (tab: AccountTab) => {
    setOpen(false);
    navigate(accountUrl(tab));
  };
  const name = displayName(user);
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: Escape closes the menu from any of its items
    <div
      className="settings-anchor"
      ref={anchor}
      onKeyDown={(event) => {
        if (event.key === "Escape") setOpen(false);
      }}
    >
      <button
        type="button"
        className="icon-btn account-btn"
        aria-label={t("account.menu", { name })}
        aria-haspopup="menu"
        aria-expanded={open}
        onClick={() => setOpen(!open)}
      >
        <CircleUser size={18} aria-hidden />
        <span className="account-name">{name}</span>
      </button>
      {open && (
        <div className="settings account-menu" role="menu" aria-label={t("account.menuLabel")}>
          <div className="muted small">
            {t("account.signedInAs")} <strong>{name}</strong>
            {isAdmin(user) ? t("account.adminSuffix") : ""}
          </div>
          <button type="button" role="menuitem" onClick={() => go("tokens")}>
            <KeyRound size={14} aria-hidden /> {t("account.tokens")}
          </button>
          <button type="button" role="menuitem" onClick={() => go("password")}>
            <Lock size={14} aria-hidden /> {t("account.changePassword")}
          </button>
          {isAdmin(user) && (
            <button type="button" role="menuitem" onClick={() => go("users")}>
              <Users size={14} aria-hidden /> {t("account.users")}
            </button>
          )}
          <button
            type="button"
            role="menuitem"
            onClick={() => {
              setOpen(false);
              onSignOut();
            }}
          >
            <LogOut size={14} aria-hidden /> {t("account.signOut")}
          </button>
        </div>
      )}
    </div>
  );
}
