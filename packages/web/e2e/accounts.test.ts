/**
 * Accounts end to end against a real `deerflow serve` with `server.auth: users`: the first admin is set
 * up in the browser and signed in; a task runs (its writes carry the CSRF header); an API token made in
 * the UI, copied from the page, works for a script; sign out shows the sign-in page and signing in
 * again works; the admin creates a second user on the users page, and that user signs in and sees none
 * of the admin's threads. axe-core checks each new page on the way.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Page } from "playwright-core";
import { seriousViolations } from "./axe.js";
import { sendTask, serveForFile, skipReason, withPage } from "./support.js";

const skip = skipReason();
const server = serveForFile(skip, { configYaml: "models:\n  - { name: demo, use: demo }\nserver:\n  auth: users\n" });

const ADMIN = { name: "admin@example.com", password: "admin-password-1" };
const BOB = { name: "bob", password: "bob-password-1" };

async function signIn(page: Page, user: { name: string; password: string }): Promise<void> {
  await page.getByRole("heading", { name: "Sign in to DeerFlow" }).waitFor();
  await page.getByLabel("User name or email").fill(user.name);
  await page.getByLabel("Password", { exact: true }).fill(user.password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.getByRole("button", { name: `Account: ${user.name}` }).waitFor();
}

async function openAccountMenu(page: Page, name: string, item: string): Promise<void> {
  await page.getByRole("button", { name: `Account: ${name}` }).click();
  await page.getByRole("menuitem", { name: item }).click();
}

test("first admin set up in the browser, an API token from the UI, sign out and in, a second user sees only their own threads", {
  skip,
}, async () => {
  await withPage("accounts", async (page, context) => {
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.url });
    const a11y: string[] = [];
    await page.goto(`${server.url}/`);

    // Nobody exists yet: the setup page creates the first admin and signs them in.
    await page.getByRole("heading", { name: "Set up DeerFlow" }).waitFor();
    a11y.push(...(await seriousViolations(page, "setup page")));
    await page.getByLabel("Email or user name").fill(ADMIN.name);
    await page.getByLabel("Password", { exact: true }).fill(ADMIN.password);
    await page.getByLabel("Repeat password").fill(ADMIN.password);
    await page.getByRole("button", { name: "Create admin account" }).click();
    await page.getByRole("button", { name: `Account: ${ADMIN.name}` }).waitFor();

    // A task runs with the session cookie (the run's POST carries the CSRF header, or it would be a 403).
    await sendTask(page, "Write a note about the admin's plans");
    await page.getByText("I wrote a note about your task").waitFor();
    await page.waitForURL(/\/threads\/[0-9a-f-]+$/);
    const adminThread = decodeURIComponent(new URL(page.url()).pathname.split("/").pop()!);
    await page.locator(`[data-testid=thread-item][data-thread-id="${adminThread}"]`).waitFor();

    // An API token: created with a label, its secret shown once, copied with the button, usable by a script.
    await openAccountMenu(page, ADMIN.name, "API tokens");
    await page.waitForURL(/\/settings\?tab=tokens$/);
    await page.getByLabel("Token label").fill("e2e script");
    await page.getByRole("button", { name: "Create token" }).click();
    const shown = await page.getByLabel("Secret token").inputValue();
    await page.getByText("it will not be shown again").waitFor();
    a11y.push(...(await seriousViolations(page, "tokens page with a new secret")));
    await page.getByRole("button", { name: "Copy" }).click();
    await page.getByRole("button", { name: "Copied" }).waitFor();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    assert.equal(copied, shown);
    const search = await fetch(`${server.url}/threads/search`, {
      method: "POST",
      headers: { authorization: `Bearer ${copied}`, "content-type": "application/json" },
      body: JSON.stringify({ limit: 10 }),
    });
    assert.equal(search.status, 200);
    const found = (await search.json()) as { thread_id: string }[];
    assert.deepEqual(
      found.map((thread) => thread.thread_id),
      [adminThread],
    );
    await page.getByRole("button", { name: "Done" }).click();
    assert.equal(await page.getByLabel("Secret token").count(), 0, "the secret is gone once dismissed");
    await page.getByTestId("token-row").filter({ hasText: "e2e script" }).waitFor();

    // Sign out: the sign-in page, also after a reload (the session is gone); then sign in again.
    await openAccountMenu(page, ADMIN.name, "Sign out");
    await page.getByRole("heading", { name: "Sign in to DeerFlow" }).waitFor();
    a11y.push(...(await seriousViolations(page, "sign-in page")));
    await page.reload();
    await page.getByLabel("Password", { exact: true }).fill("not-the-password");
    await page.getByLabel("User name or email").fill(ADMIN.name);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.getByText("Wrong user name or password.").waitFor();
    await signIn(page, ADMIN);
    await page.locator(`[data-testid=thread-item][data-thread-id="${adminThread}"]`).waitFor();

    // The admin creates a second user on the users page; their first token is shown once.
    await openAccountMenu(page, ADMIN.name, "Users");
    await page.waitForURL(/\/settings\?tab=users$/);
    await page.getByLabel("New user's name or email").fill(BOB.name);
    await page.getByLabel("New user's password").fill(BOB.password);
    await page.getByRole("button", { name: "Create user" }).click();
    await page.getByText(`First API token of ${BOB.name}`).waitFor();
    await page.getByRole("button", { name: "Done" }).click();
    const bobRow = page.locator(`[data-testid=user-row][data-user="${BOB.name}"]`);
    await bobRow.waitFor();
    assert.equal(await bobRow.getByRole("combobox", { name: `Role of ${BOB.name}` }).inputValue(), "user");
    await page.getByRole("button", { name: `Edit limits of ${BOB.name}` }).click();
    await page.getByRole("button", { name: "Remove bob" }).click();
    await page.getByText(/deletes all their threads/).waitFor();
    a11y.push(...(await seriousViolations(page, "users page with the limit editor and a removal to confirm")));
    await page.getByRole("button", { name: "Keep" }).click();
    await page.getByRole("button", { name: "Cancel" }).click();

    // Bob signs in: no admin menu item, none of the admin's threads, and the admin's thread is "not found".
    await openAccountMenu(page, ADMIN.name, "Sign out");
    await signIn(page, BOB);
    await page.getByText("No chats yet.").waitFor();
    assert.equal(await page.getByTestId("thread-item").count(), 0);
    await page.getByRole("button", { name: `Account: ${BOB.name}` }).click();
    assert.equal(await page.getByRole("menuitem", { name: "Users" }).count(), 0);
    a11y.push(...(await seriousViolations(page, "chat with the account menu open")));
    await page.keyboard.press("Escape");
    await page.goto(`${server.url}/threads/${encodeURIComponent(adminThread)}`);
    await page.getByTestId("not-found").waitFor();
    assert.deepEqual(a11y, []);
  });
});
