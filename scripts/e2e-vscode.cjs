// Drives VS Code (code-server) in headless Chromium with the Lorekeeper extension installed, on the
// example workspace after its refactor. Checks: a stale-memory squiggle and its Problems entry, Open Docs,
// a resolved finding of a file never opened leaving the Problems panel, a move in the working tree and then
// a commit alone re-checking, hover and quick fix in .github/copilot-instructions.md, the provenance hover,
// the merge quick fix applied, Ctrl+Z after it learnt by the journal (undo then does not refuse), and
// compaction: the preview readable while the (non-modal) question waits, applied by the server.
// Saves a screenshot of each step. Run by scripts/e2e-vscode.
const { chromium } = require("playwright-core");
const { execFileSync } = require("node:child_process");
const { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, writeFileSync } = require("node:fs");
const { join } = require("node:path");

const [url, workspace, shots, mode = "main"] = process.argv.slice(2);
const results = [];
const check = (name, ok, detail = "") => results.push(`${ok ? "ok" : "FAIL"} ${name}${detail ? ": " + detail : ""}`);
const git = (...args) => execFileSync("git", ["-C", workspace, ...args], { env: { ...process.env,
  GIT_AUTHOR_NAME: "E2E", GIT_AUTHOR_EMAIL: "e2e@example.com", GIT_COMMITTER_NAME: "E2E", GIT_COMMITTER_EMAIL: "e2e@example.com" } });

async function main() {
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
const page = await browser.newPage({ viewport: { width: 1500, height: 950 } });
const shot = (name) => page.screenshot({ path: join(shots, `${name}.png`) });

async function palette(command) {
  await page.keyboard.press("F1");
  await page.keyboard.type(command);
  await page.waitForSelector(`.quick-input-list .monaco-list-row:has-text("${command.split(": ")[1]}")`, { timeout: 15000 });
  await page.keyboard.press("Enter");
}

// Clicks the editor line holding `text` 200 px in (inside an entry's content value): the middle of a long
// line can sit under the minimap or past the editor's edge, and a widget left open (a hover, the action list) can cover it, so a
// click that does not land is retried after Escape.
async function clickLine(text) {
  const line = page.locator(".editor-instance .view-line", { hasText: text }).first();
  for (let attempt = 0; ; attempt++) {
    try {
      await line.click({ position: { x: 200, y: 5 }, timeout: 10000 });
      return;
    } catch (error) {
      if (attempt === 2) throw error;
      await page.keyboard.press("Escape");
      await page.mouse.move(5, 5);
      await page.waitForTimeout(1000);
    }
  }
}

async function quickOpen(name) {
  await page.keyboard.press("Control+P");
  await page.waitForSelector(".quick-input-widget input", { timeout: 15000 });
  await page.keyboard.type(name);
  await page.waitForSelector(`.quick-input-list .monaco-list-row[aria-label*="${name}"]`, { timeout: 15000 });
  await page.keyboard.press("Enter");
  await page.waitForSelector(`.tab.active[aria-label*="${name}"]`, { timeout: 15000 });
}

async function install() {
  // No server anywhere: the message offers to install it; one click, and diagnostics follow.
  await page.goto(`${url}/?folder=${encodeURIComponent(workspace)}`);
  await page.waitForSelector(".monaco-workbench", { timeout: 90000 });
  const failure = page.locator('.notifications-toasts .notification-toast:has-text("could not start")').first();
  const told = await failure.waitFor({ timeout: 60000 }).then(() => true, () => false);
  check("no server anywhere: the message offers to install it", told);
  if (!told) {
    return;
  }
  // The install's own progress ("looking for Python…", "creating a private environment…", "installing the
  // server…"), not the error toast, which also says "Lorekeeper". A click that lands while the toast is
  // still sliding in is lost: it is made again, at most three times.
  const installing = '.notification-toast:has-text("looking for Python"), .notification-toast:has-text("private environment"), '
    + '.notification-toast:has-text("installing the server")';
  let progress = false;
  for (let attempt = 0; attempt < 3 && !progress; attempt++) {
    await failure.locator('.monaco-button:has-text("Install the Server")').click({ timeout: 10000 }).catch(() => undefined);
    progress = await page.waitForSelector(installing, { timeout: 20000 }).then(() => true, () => false);
  }
  await shot("9-installing");
  check("installing shows progress", progress);
  await quickOpen("CLAUDE.md");
  const squiggle = await page.waitForSelector(".squiggly-error", { timeout: 600000 }).then(() => true, () => false);
  await shot("10-installed");
  check("installed from the .vsix alone: diagnostics without a terminal", squiggle);
}

const settingsFile = join(workspace, ".vscode", "settings.json");
const settings = JSON.parse(readFileSync(settingsFile, "utf8"));
const server = settings["lorekeeper.server.path"];

try {
  if (mode === "install") {
    await install();
    throw "done";
  }
  // First start with a server path that does not exist: an actionable message, no modal, no stack trace.
  writeFileSync(settingsFile, JSON.stringify({ ...settings, "lorekeeper.server.path": "/nonexistent/lore" }));
  await page.goto(`${url}/?folder=${encodeURIComponent(workspace)}`);
  await page.waitForSelector(".monaco-workbench", { timeout: 90000 });
  const failure = page.locator('.notifications-toasts .notification-toast:has-text("could not start")').first();
  const told = await failure.waitFor({ timeout: 60000 }).then(() => true, () => false);
  const buttons = told ? await failure.locator(".monaco-button").allInnerTexts() : [];
  await shot("0-no-server");
  check("missing server: an actionable message", told && ["Install the Server", "Set Server Path", "Open Docs"]
    .every((b) => buttons.some((t) => t.includes(b))), buttons.join(", "));
  if (told) {  // "Set Server Path" opens the setting where users look: the User tab
    await failure.locator('.monaco-button:has-text("Set Server Path")').click();
    const visible = await page.waitForSelector('.settings-editor .setting-item-label:has-text("Path"), .settings-editor :text("Server: Path")',
      { timeout: 20000 }).then(() => true, () => false);
    const tab = await page.locator(".settings-tabs-widget .action-label.checked").first().innerText().catch(() => "");
    await shot("0-set-server-path");
    check("Set Server Path shows the setting in the User tab", visible && tab.startsWith("User"), tab);
    await page.keyboard.press("Control+W");
    // the message again (a restart fails the same way): Open Docs opens the README, whatever its case
    await palette("Lorekeeper: Restart Server");
    const again = page.locator('.notifications-toasts .notification-toast:has-text("could not start")').first();
    if (await again.waitFor({ timeout: 30000 }).then(() => true, () => false)) {
      await again.locator('.monaco-button:has-text("Open Docs")').click();
      const docs = await page.waitForSelector('.tab:has-text("readme"), .tab:has-text("README")', { timeout: 20000 })
        .then(() => true, () => false);
      const failed = await page.waitForSelector('.notifications-toasts:has-text("cannot be found")', { timeout: 2000 })
        .then(() => true, () => false);
      await shot("0-open-docs");
      check("Open Docs opens the README", docs && !failed);
      // the preview is a webview, which keeps the keyboard: give it back to the workbench
      await page.locator(".part.sidebar").first().click({ position: { x: 120, y: 500 } });
    } else {
      check("Open Docs opens the README", false, "the message did not come back");
    }
  }
  await palette("Lorekeeper: Check Stale Memories");
  const dialog = await page.waitForSelector(".monaco-dialog-box", { timeout: 3000 }).then(() => true, () => false);
  check("a command without a server: no modal dialog", !dialog);
  if (dialog) {
    await page.keyboard.press("Escape");
  }
  // Setting the path restarts the server: diagnostics follow, with no reload.
  writeFileSync(settingsFile, JSON.stringify({ ...settings, "lorekeeper.server.path": server }));

  await quickOpen("CLAUDE.md");
  const squiggle = await page.waitForSelector(".squiggly-error", { timeout: 60000 }).then(() => true, () => false);
  await shot("1-squiggle");
  check("after setting the path: stale-memory squiggle in CLAUDE.md", squiggle);

  // Verify a memory from the palette: its lens shows the date.
  await page.locator(".view-line", { hasText: "Route handlers live in" }).first().click();
  await palette("Lorekeeper: Mark Memory Verified");
  const today = new Date().toISOString().slice(0, 10);
  const dated = await page.waitForSelector(`.contentWidgets .codelens-decoration:has-text("verified ${today}"), `
    + `.codelens-decoration:has-text("verified ${today}")`, { timeout: 20000 }).then(() => true, () => false);
  check("verify: the lens shows the date", dated);
  // What the agents make of this file, at its top; and the full answer for it as a read-only document.
  const agentsLens = await page.waitForSelector('.codelens-decoration:has-text("Loaded by Claude Code")', { timeout: 20000 })
    .then(() => true, () => false);
  check("a lens says which agents load CLAUDE.md", agentsLens);
  await palette("Lorekeeper: Show What Agents Load for This File");
  const loadsTab = await page.waitForSelector('.tab:has-text("What agents load")', { timeout: 20000 })
    .then(() => true, () => false);
  await shot("1b-what-agents-load");
  check("Show What Agents Load opens the answer", loadsTab);
  await quickOpen("CLAUDE.md");

  await page.keyboard.press("Control+Shift+M");
  const problem = await page.waitForSelector('.markers-panel .monaco-list-row:has-text("test:e2e")', { timeout: 20000 })
    .then(() => true, () => false);
  await shot("2-problems");
  check("Problems panel lists the stale script", problem);

  // A file never opened: its only finding goes away (the e2e/ folder is back); its Problems entry goes too.
  const mdc = '.markers-panel .monaco-list-row:has-text("testing.mdc")';
  const listed = await page.waitForSelector(mdc, { timeout: 20000 }).then(() => true, () => false);
  mkdirSync(join(workspace, "e2e"), { recursive: true });
  writeFileSync(join(workspace, "e2e", "checkout.spec.ts"), "export {};\n");
  const gone = await page.waitForSelector(mdc, { state: "detached", timeout: 30000 }).then(() => true, () => false);
  await shot("2-resolved-unopened");
  check("a resolved finding of a file never opened leaves the Problems panel", listed && gone);

  // A move in the working tree, then the commit alone (no file of the tree changes): the finding follows.
  renameSync(join(workspace, "src/db/schema.ts"), join(workspace, "src/db/tables.ts"));
  const uncommitted = '.markers-panel .monaco-list-row:has-text("schema.ts"):has-text("not committed")';
  const moved = await page.waitForSelector(uncommitted, { timeout: 30000 }).then(() => true, () => false);
  git("add", "-A");
  git("commit", "-qm", "tables, not schema");
  const committed = await page.waitForSelector(uncommitted, { state: "detached", timeout: 30000 })
    .then(() => page.waitForSelector('.markers-panel .monaco-list-row:has-text("schema.ts")', { timeout: 10000 }))
    .then(() => true, () => false);
  await shot("2-after-commit");
  check("a commit re-checks (the move is now the commit's)", moved && committed);
  await page.keyboard.press("Control+Shift+M");

  // .github/copilot-instructions.md (VS Code's language "instructions"): hover and quick fix there too.
  await quickOpen("copilot-instructions.md");
  const schemaLine = page.locator(".view-line", { hasText: "src/db/schema.ts" }).first();
  let copilotHover = false;
  for (let attempt = 0; attempt < 3 && !copilotHover; attempt++) {  // (a hover can be lost while the editor settles)
    await page.mouse.move(5, 5);
    await schemaLine.hover({ position: { x: 80 + 10 * attempt, y: 5 } });
    copilotHover = await page.waitForSelector('.monaco-hover:has-text("Memory")', { timeout: 10000 })
      .then(() => true, () => false);
  }
  await shot("2-copilot-hover");
  await page.mouse.move(5, 5);
  await schemaLine.click({ position: { x: 80, y: 5 } });
  await page.waitForTimeout(500);
  await page.keyboard.press("Control+.");
  const update = page.locator('.action-widget .action-label:has-text("src/db/tables.ts"), .monaco-list-row:has-text("src/db/tables.ts")').first();
  const copilotFix = await update.waitFor({ timeout: 20000 }).then(() => true, () => false);
  await shot("2-copilot-quick-fix");
  check("hover and quick fix in .github/copilot-instructions.md", copilotHover && copilotFix);
  await page.keyboard.press("Escape");
  await page.locator('.tab:has-text("CLAUDE.md")').first().click();
  await page.waitForSelector('.tab.active:has-text("CLAUDE.md")', { timeout: 15000 });

  const line = page.locator(".view-line", { hasText: "src/lib/logger.ts" }).first();
  await line.hover({ position: { x: 60, y: 5 } });
  const hover = await page.waitForSelector('.monaco-hover:has-text("Memory")', { timeout: 20000 })
    .then(async (el) => (await el.innerText()), () => "");
  await shot("3-hover");
  check("provenance hover", hover.includes("CLAUDE.md:16") && hover.includes("moved"), hover.slice(0, 80));
  await page.mouse.move(5, 5);

  const duplicate = "20260716T130500Z-8f7e6d5c4b3a.json";  // the copy without a reference: merged into the other
  await quickOpen(duplicate);
  await clickLine("content");
  await page.waitForTimeout(1000);
  await page.keyboard.press("Control+.");
  const merge = page.locator('.action-widget .action-label:has-text("Merge with 6d5c4b3a2f1e"), .monaco-list-row:has-text("Merge with 6d5c4b3a2f1e")').first();
  const offered = await merge.waitFor({ timeout: 20000 }).then(() => true, () => false);
  await shot("4-quick-fix");
  check("merge quick fix offered", offered);
  if (offered) {
    await merge.click();
    let merged = false;
    for (let i = 0; i < 40 && !merged; i++) {
      await page.waitForTimeout(250);
      merged = JSON.parse(readFileSync(join(workspace, ".lore/memory/entries", duplicate), "utf8")).merged_into === "6d5c4b3a2f1e";
    }
    check("merge applied (journaled)", merged);

    // The editor's undo after the quick fix: the file goes back, the journal learns it, and the palette's
    // undo then has nothing to refuse.
    await clickLine("content");
    await page.waitForTimeout(1500);  // the editor has reloaded the merged file
    await page.keyboard.press("Control+Z");
    await page.keyboard.press("Control+S");
    let reverted = false;
    for (let i = 0; i < 40 && !reverted; i++) {
      await page.waitForTimeout(250);
      reverted = !("merged_into" in JSON.parse(readFileSync(join(workspace, ".lore/memory/entries", duplicate), "utf8")));
    }
    check("Ctrl+Z reverts the quick fix in the file", reverted);
    let learnt = false;
    for (let i = 0; i < 40 && !learnt; i++) {
      await page.waitForTimeout(250);
      learnt = readdirSync(join(workspace, ".lore/memory/log")).filter((f) => f.endsWith(".json"))
        .some((f) => readFileSync(join(workspace, ".lore/memory/log", f), "utf8").includes("reverted outside Lorekeeper"));
    }
    check("the journal records the editor's undo", learnt);
    await palette("Lorekeeper: Undo Last Change");
    const refused = await page.waitForSelector('.notifications-toasts:has-text("refus")', { timeout: 4000 })
      .then(() => true, () => false);
    await shot("5-undo-after-ctrl-z");
    check("palette undo after Ctrl+Z does not refuse", !refused);
  }

  // Compaction: the preview readable (scrolled) while the question waits beside it, not in a modal;
  // accepted whole, applied by the server (no partial mode).
  await palette("Lorekeeper: Compact Memory");
  await page.waitForSelector('.quick-input-list .monaco-list-row:has-text("Compact: rules")', { timeout: 20000 });
  const stagesOffered = await page.locator(".quick-input-list .monaco-list-row").allInnerTexts();
  check("no language-model stage offered in an editor without a model", !stagesOffered.some((t) => t.includes("language model")),
        stagesOffered.join(" | ").slice(0, 200));
  await page.keyboard.press("Enter");
  const previewTab = await page.waitForSelector('.tab:has-text("Compaction preview")', { timeout: 30000 })
    .then(() => true, () => false);
  const apply = page.locator('.notifications-toasts .notification-toast:has-text("apply") .monaco-button:has-text("Apply")').first();
  const asked = await apply.waitFor({ timeout: 20000 }).then(() => true, () => false);
  const modal = await page.waitForSelector(".monaco-dialog-box", { timeout: 1000 }).then(() => true, () => false);
  await page.locator(".editor-instance .view-line").first().click();
  await page.keyboard.press("Control+End");  // the preview scrolls while the question waits
  await page.waitForTimeout(500);
  const read = await page.locator(".editor-instance .view-line").allInnerTexts().then((t) => t.join("\n"), () => "");
  await shot("6-compact-preview");
  check("the preview is readable before Apply (no modal)", previewTab && asked && !modal && read.length > 0);
  if (asked) {
    await apply.click();
    const superseded = join(workspace, ".lore/memory/entries/20260503T120000Z-9a8b7c6d5e4f.json");
    let applied = false;
    for (let i = 0; i < 60 && !applied; i++) {
      await page.waitForTimeout(250);
      applied = JSON.parse(readFileSync(superseded, "utf8")).superseded_by === "4e5f6a7b8c9d"
        && existsSync(join(workspace, ".lore/memory/index.md"))
        && JSON.parse(readFileSync(join(workspace, ".lore/memory/entries", duplicate), "utf8")).merged_into === "6d5c4b3a2f1e";
    }
    await page.locator(".editor-instance .view-line").first().click();
    await page.keyboard.press("Control+Home");
    const says = await page.waitForSelector('.editor-instance .view-line:has-text("Applied")', { timeout: 10000 })
      .then(() => true, () => false);
    await shot("7-compact-applied");
    check("the whole plan is applied by the server (every file, index.md)", applied);
    check("the preview then says it was applied", says);
  }

  // Code lenses in code files, once the setting is on (the server is restarted for it).
  writeFileSync(settingsFile, JSON.stringify({ ...settings, "lorekeeper.server.path": server, "lorekeeper.codeLensInCode": true }));
  await page.waitForTimeout(4000);
  await quickOpen("stripe.ts");
  const codeLens = await page.waitForSelector('.codelens-decoration:has-text("reference this file")', { timeout: 30000 })
    .then(() => true, () => false);
  await shot("8-lens-in-code");
  check("a lens in a .ts file with codeLensInCode", codeLens);
} catch (error) {
  if (error !== "done") {
    check("run", false, String(error).split("\n").slice(0, 6).join(" / "));
    await shot("error").catch(() => {});
  }
} finally {
  await browser.close();
}
console.log(results.join("\n"));
const failed = results.filter((r) => r.startsWith("FAIL")).length;
console.log(`e2e-vscode: ${results.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
}

main();
