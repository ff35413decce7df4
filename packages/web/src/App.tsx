/**
 * The gate in front of the app: asks the server who this browser is ({@link useAccess}) and shows the
 * sign-in page, the first admin's setup, the API key form, or the app. While the server has no
 * accounts it shows the app straight away, exactly as before accounts existed. The app is keyed by
 * the user, so nothing one person saw (threads, chat state) survives into another's session.
 */
import { useCallback, useState } from "react";
import { useAccess } from "./account/access";
import { signOut } from "./account/account-api";
import { FirstAdmin } from "./account/FirstAdmin";
import { t, useLocale } from "./i18n";
import { SignIn } from "./account/SignIn";
import { saveApiKey, savedApiKey } from "./api";
import { navigate } from "./router";
import { ApiKeyForm } from "./settings/ApiKeyForm";
import { useSettings } from "./settings/settings";
import { Workspace } from "./Workspace";

/** Forgets what this tab kept for the signed-out person: drafts and run reconnect records. */
function forgetSessionDrafts(): void {
  for (const key of Object.keys(sessionStorage))
    if (key.startsWith("deerflow.draft.") || key.startsWith("lg:stream:")) sessionStorage.removeItem(key);
}

/** The whole app. */
export function App() {
  useLocale();
  const [apiKey, setApiKey] = useState(savedApiKey);
  const [settings, updateSettings] = useSettings();
  const [access, recheck] = useAccess(apiKey);
  /** The person chose the key form over signing in (or the setup page). */
  const [wantsKey, setWantsKey] = useState(false);

  const chooseKey = (key: string | undefined) => {
    saveApiKey(key ?? "");
    setWantsKey(false);
    if (key === apiKey) recheck();
    else setApiKey(key);
  };
  const signedIn = () => recheck();
  // Stable, so the app does not reload its thread list on every render of the gate.
  const unauthorized = useCallback(() => recheck({ refused: true }), [recheck]);

  if (access.kind === "checking") return <div className="center-page muted">{t("common.loading")}</div>;
  if (wantsKey || access.kind === "key") {
    const accounts = access.kind === "key" ? access.accounts : true;
    return (
      <ApiKeyForm
        rejected={access.kind === "key" && access.rejected && !wantsKey}
        onSave={chooseKey}
        onSignIn={
          accounts
            ? () => {
                setWantsKey(false);
                if (apiKey) chooseKey(undefined);
                else recheck();
              }
            : undefined
        }
      />
    );
  }
  if (access.kind === "sign-in")
    return <SignIn providers={access.providers} onSignedIn={signedIn} onUseKey={() => setWantsKey(true)} />;
  if (access.kind === "setup")
    return <FirstAdmin onDone={signedIn} onAlreadySetUp={() => recheck()} onUseKey={() => setWantsKey(true)} />;
  const user = access.user;
  return (
    <Workspace
      key={user?.id ?? "local"}
      apiKey={apiKey}
      user={user}
      settings={settings}
      onSettings={updateSettings}
      onUnauthorized={unauthorized}
      onSignOut={() => {
        forgetSessionDrafts();
        void signOut()
          .catch(() => undefined)
          .then(() => {
            navigate("/", true);
            if (apiKey) chooseKey(undefined);
            else recheck();
          });
      }}
      onForgetKey={apiKey ? () => chooseKey(undefined) : undefined}
    />
  );
}
