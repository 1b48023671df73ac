// Drives VS Code (code-server) in headless Chromium with the Lorekeeper extension installed, on the
// example workspace after its refactor. Checks: a stale-memory squiggle and its Problems entry, the
// provenance hover, the merge quick fix applied, Ctrl+Z after it learnt by the journal (undo then does
// not refuse), and compaction: the preview document, one modal for the whole plan, applied by the server.
// Saves a screenshot of each step. Run by scripts/e2e-vscode.
const { chromium } = require("playwright-core");
const { existsSync, readFileSync, readdirSync } = require("node:fs");
const { join } = require("node:path");

const [url, workspace, shots] = process.argv.slice(2);
const results = [];
const check = (name, ok, detail = "") => results.push(`${ok ? "ok" : "FAIL"} ${name}${detail ? ": " + detail : ""}`);

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

async function quickOpen(name) {
  await page.keyboard.press("Control+P");
  await page.waitForSelector(".quick-input-widget input", { timeout: 15000 });
  await page.keyboard.type(name);
  await page.waitForSelector(`.quick-input-list .monaco-list-row[aria-label*="${name}"]`, { timeout: 15000 });
  await page.keyboard.press("Enter");
  await page.waitForSelector(`.tab.active[aria-label*="${name}"]`, { timeout: 15000 });
}

try {
  await page.goto(`${url}/?folder=${encodeURIComponent(workspace)}`);
  await page.waitForSelector(".monaco-workbench", { timeout: 90000 });
  await page.waitForTimeout(3000);

  await quickOpen("CLAUDE.md");
  const squiggle = await page.waitForSelector(".squiggly-error", { timeout: 60000 }).then(() => true, () => false);
  await shot("1-squiggle");
  check("stale-memory squiggle in CLAUDE.md", squiggle);

  await page.keyboard.press("Control+Shift+M");
  const problem = await page.waitForSelector('.markers-panel .monaco-list-row:has-text("test:e2e")', { timeout: 20000 })
    .then(() => true, () => false);
  await shot("2-problems");
  check("Problems panel lists the stale script", problem);
  await page.keyboard.press("Control+Shift+M");

  const line = page.locator(".view-line", { hasText: "src/lib/logger.ts" }).first();
  await line.hover({ position: { x: 60, y: 5 } });
  const hover = await page.waitForSelector('.monaco-hover:has-text("Memory")', { timeout: 20000 })
    .then(async (el) => (await el.innerText()), () => "");
  await shot("3-hover");
  check("provenance hover", hover.includes("CLAUDE.md:16") && hover.includes("moved"), hover.slice(0, 80));
  await page.mouse.move(5, 5);

  const duplicate = "20260716T130500Z-8f7e6d5c4b3a.json";  // the copy without a reference: merged into the other
  await quickOpen(duplicate);
  await page.locator(".view-line", { hasText: "content" }).first().click();
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
    await page.locator(".view-line", { hasText: "content" }).first().click();
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

  // Compaction: a readable preview, accepted whole in a modal, applied by the server (no partial mode).
  await palette("Lorekeeper: Compact Memory");
  await page.waitForSelector('.quick-input-list .monaco-list-row:has-text("Compact: rules")', { timeout: 20000 });
  await page.keyboard.press("Enter");
  const previewTab = await page.waitForSelector('.tab:has-text("Compaction preview")', { timeout: 30000 })
    .then(() => true, () => false);
  const apply = page.locator('.monaco-dialog-box .monaco-button:has-text("Apply")').first();
  const modal = await apply.waitFor({ timeout: 20000 }).then(() => true, () => false);
  await page.waitForTimeout(1000);
  await shot("6-compact-preview");
  check("compact shows the preview and asks once, for the whole plan", previewTab && modal);
  if (modal) {
    await apply.click();
    const superseded = join(workspace, ".lore/memory/entries/20260503T120000Z-9a8b7c6d5e4f.json");
    let applied = false;
    for (let i = 0; i < 60 && !applied; i++) {
      await page.waitForTimeout(250);
      applied = JSON.parse(readFileSync(superseded, "utf8")).superseded_by === "4e5f6a7b8c9d"
        && existsSync(join(workspace, ".lore/memory/index.md"))
        && JSON.parse(readFileSync(join(workspace, ".lore/memory/entries", duplicate), "utf8")).merged_into === "6d5c4b3a2f1e";
    }
    await page.waitForTimeout(500);
    await shot("7-compact-applied");
    check("the whole plan is applied by the server (every file, index.md)", applied);
  }
} catch (error) {
  check("run", false, String(error).split("\n")[0]);
  await shot("error").catch(() => {});
} finally {
  await browser.close();
}
console.log(results.join("\n"));
const failed = results.filter((r) => r.startsWith("FAIL")).length;
console.log(`e2e-vscode: ${results.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
}

main();
