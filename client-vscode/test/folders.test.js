// Unit tests of the multi-root logic (src/folders.ts, built to dist/folders.cjs by `npm test`).
const test = require("node:test");
const assert = require("node:assert/strict");
const f = require("../dist/folders.cjs");

const API = "file:///work/api";
const WEB = "file:///work/web";
const WEB_DOCS = "file:///work/web/docs";

test("a folder holds its own files and subfolders, not a sibling with the same prefix", () => {
  assert.equal(f.isWithin(API, API), true);
  assert.equal(f.isWithin(API, `${API}/CLAUDE.md`), true);
  assert.equal(f.isWithin(`${API}/`, `${API}/.lore/memory/x.json`), true);
  assert.equal(f.isWithin(API, "file:///work/api-v2/CLAUDE.md"), false);
  assert.equal(f.isWithin(API, WEB), false);
});

test("every outer folder gets a server; a nested folder is served by its outer folder", () => {
  assert.deepEqual(f.servedFolders([API, WEB, WEB_DOCS]), [API, WEB]);
  assert.deepEqual(f.servedFolders([WEB_DOCS, WEB]), [WEB]);
  assert.deepEqual(f.servedFolders([API, API]), [API]);
  assert.deepEqual(f.servedFolders([]), []);
  assert.equal(f.servingFolder(`${WEB_DOCS}/AGENTS.md`, [API, WEB]), WEB);
  assert.equal(f.servingFolder(`${API}/CLAUDE.md`, [API, WEB]), API);
  assert.equal(f.servingFolder("file:///elsewhere/CLAUDE.md", [API, WEB]), undefined);
  assert.equal(f.servingFolder(undefined, [API]), undefined);
});

test("folder changes start servers for added folders and stop those of removed ones", () => {
  assert.deepEqual(f.reconcile([], [API, WEB]), { start: [API, WEB], stop: [] });
  assert.deepEqual(f.reconcile([API, WEB], [WEB]), { start: [], stop: [API] });
  assert.deepEqual(f.reconcile([API], [API, WEB]), { start: [WEB], stop: [] });
  // an outer folder added around a served one takes over
  assert.deepEqual(f.reconcile([WEB_DOCS], [WEB_DOCS, WEB]), { start: [WEB], stop: [WEB_DOCS] });
  assert.deepEqual(f.reconcile([API, WEB], [WEB, API]), { start: [], stop: [] });
});

test("a command acts on the active editor's folder, else the only folder, else asks", () => {
  assert.deepEqual(f.chooseFolder([API, WEB], `${WEB}/CLAUDE.md`), { folder: WEB });
  assert.deepEqual(f.chooseFolder([API, WEB], WEB_DOCS), { folder: WEB });
  assert.deepEqual(f.chooseFolder([API], undefined), { folder: API });
  assert.deepEqual(f.chooseFolder([API], "file:///elsewhere/x.md"), { folder: API });
  assert.deepEqual(f.chooseFolder([API, WEB], undefined), { ask: [API, WEB] });
  assert.deepEqual(f.chooseFolder([API, WEB], "untitled:Untitled-1"), { ask: [API, WEB] });
  assert.deepEqual(f.chooseFolder([], `${API}/CLAUDE.md`), { none: true });
});

test("the status bar follows the active editor's folder and keeps the last one otherwise", () => {
  assert.equal(f.statusFolder([API, WEB], `${WEB}/CLAUDE.md`, API), WEB);
  assert.equal(f.statusFolder([API, WEB], undefined, WEB), WEB);
  assert.equal(f.statusFolder([API, WEB], undefined, undefined), API);
  assert.equal(f.statusFolder([API], undefined, WEB), API); // the folder shown last is gone
  assert.equal(f.statusFolder([], undefined, API), undefined);
});

test("a folder's document selector only matches that folder's files", () => {
  const selector = f.folderSelector([
    { scheme: "file", language: "markdown" },
    { scheme: "file", pattern: "**/*.mdc" },
  ], API);
  assert.deepEqual(selector, [
    { scheme: "file", language: "markdown", pattern: { baseUri: API, pattern: "**/*" } },
    { scheme: "file", pattern: { baseUri: API, pattern: "**/*.mdc" } },
  ]);
  assert.deepEqual(f.folderSelector([{ scheme: "file" }], WEB), [{ scheme: "file", pattern: { baseUri: WEB, pattern: "**/*" } }]);
});

test("a server's command is routed back to its folder, once", () => {
  const lens = { title: "3 references", command: "lore.describe", arguments: ["9a8b"] };
  const routed = f.routeCommand(lens, API);
  assert.deepEqual(routed, { title: "3 references", command: f.SERVER_COMMAND, arguments: [API, "lore.describe", "9a8b"] });
  assert.deepEqual(lens.arguments, ["9a8b"]); // the original is left alone
  assert.equal(f.routeCommand(routed, WEB), routed); // resolve after provide does not wrap twice
  assert.deepEqual(f.unrouteArguments(routed.arguments), { folder: API, command: "lore.describe", arguments: ["9a8b"] });
  assert.deepEqual(f.routeCommand({ title: "t", command: "lore.checkStale" }, WEB).arguments, [WEB, "lore.checkStale"]);
  assert.equal(f.unrouteArguments([]), undefined);
  assert.equal(f.unrouteArguments([API]), undefined);
});
