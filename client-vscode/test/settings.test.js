// Unit tests for the client logic that does not need VS Code (built to dist/settings.cjs by `npm test`).
const test = require("node:test");
const assert = require("node:assert/strict");
const s = require("../dist/settings.cjs");

test("explicit server path wins", () => {
  const settings = { ...s.DEFAULTS, serverPath: "/opt/lore/bin/lore", interpreter: "/usr/bin/python3" };
  assert.deepEqual(s.serverCommand(settings, "/ws", () => true),
    { command: "/opt/lore/bin/lore", args: ["serve"], source: "setting" });
});

test("interpreter runs the module, and is asked its version the same way", () => {
  const settings = { ...s.DEFAULTS, interpreter: "/usr/bin/python3.11" };
  const server = s.serverCommand(settings, "/ws", () => true);
  assert.deepEqual(server, { command: "/usr/bin/python3.11", args: ["-m", "lorekeeper.cli", "serve"], source: "interpreter" });
  assert.deepEqual(s.versionCommand(server).args, ["-m", "lorekeeper.cli", "--version"]);
  assert.deepEqual(s.versionCommand(s.serverCommand(s.DEFAULTS, undefined, () => false, "linux")).args, ["--version"]);
});

test("the workspace .venv, then the extension's own environment, then lore on PATH", () => {
  const seen = [];
  const found = s.serverCommand(s.DEFAULTS, "/ws/", (p) => { seen.push(p); return true; }, "linux", "/store");
  assert.deepEqual(found, { command: "/ws/.venv/bin/lore", args: ["serve"], source: "workspace" });
  assert.deepEqual(seen, ["/ws/.venv/bin/lore"]);
  assert.deepEqual(s.serverCommand(s.DEFAULTS, "/ws", (p) => p.startsWith("/store"), "linux", "/store/"),
    { command: "/store/server-env/bin/lore", args: ["serve"], source: "managed" });
  assert.deepEqual(s.serverCommand(s.DEFAULTS, "/ws", () => false, "linux", "/store"),
    { command: "lore", args: ["serve"], source: "path" });
  assert.deepEqual(s.serverCommand(s.DEFAULTS, "C:\\ws", () => true, "win32"),
    { command: "C:\\ws\\.venv\\Scripts\\lore.exe", args: ["serve"], source: "workspace" });
  assert.deepEqual(s.managedPaths("C:\\g", "win32").python, "C:\\g\\server-env\\Scripts\\python.exe");
});

test("a start failure says where the server was looked for", () => {
  assert.match(s.startFailureText({ command: "lore", args: ["serve"], source: "path" }, "spawn lore ENOENT"),
    /`lore` is not on PATH.*\(spawn lore ENOENT\)/);
  assert.match(s.startFailureText({ command: "/x/lore", args: ["serve"], source: "setting" }, "ENOENT"),
    /lorekeeper.server.path \(\/x\/lore\) does not run/);
});

test("only Python 3.11 or newer can hold the server", () => {
  assert.equal(s.pythonIsRecentEnough("Python 3.11.7"), true);
  assert.equal(s.pythonIsRecentEnough("Python 3.13.0"), true);
  assert.equal(s.pythonIsRecentEnough("Python 3.10.12"), false);
  assert.equal(s.pythonIsRecentEnough("command not found"), false);
  assert.equal(s.pythonCandidates("linux")[0], "python3.13");
});

test("code lenses in code files give the server every file", () => {
  assert.deepEqual(s.documentSelector({ ...s.DEFAULTS, codeLensInCode: true }), [{ scheme: "file" }]);
  const selector = s.documentSelector(s.DEFAULTS);
  const patterns = selector.map((filter) => filter.pattern);
  assert.ok(selector.every((filter) => filter.scheme === "file" && filter.language === undefined));
  for (const memory of ["**/CLAUDE.md", ".github/copilot-instructions.md", ".github/instructions/**/*.instructions.md",
    "**/CRUSH.md", "**/AGENTS.override.md", "**/.windsurf/rules/*.md", ".clinerules/**/*.md", "**/.cursor/rules/**/*.mdc",
    ".claude/rules/**/*.md", ".kiro/steering/*.md", ".continue/rules/**/*.md", ".lore/memory/entries/*.json",
    "**/*.memory.md"]) {
    assert.ok(patterns.includes(memory), memory);
  }
  assert.ok(s.RESTART_KEYS.includes("lorekeeper.codeLensInCode"));
});

test("the journal document shows each operation's own time", () => {
  const text = s.journalText([{ id: "20261123-101500-abc", time: "2026-11-23T10:15:00+00:00", op: "merge",
                               reason: "merged a into b", files: ["x.json"], undone_by: null }]);
  assert.match(text, /2026-11-23 10:15:00  \*\*merge\*\*  `20261123-101500-abc`/);
  assert.match(text, /files: x.json/);
  assert.match(s.journalText([]), /No operation yet/);
});

test("settings are read with wrong types ignored", () => {
  const values = { "server.path": "  /x/lore ", debounceMs: "fast", budget: 50, codeLensInCode: true, docsUrl: 7,
                   "llm.useEditorModel": "no", "llm.editorModelFamily": 4, enable: "off" };
  const settings = s.readSettings((key) => values[key]);
  assert.deepEqual(settings, { serverPath: "/x/lore", interpreter: "", debounceMs: 50, codeLensInCode: true, budget: 2000, docsUrl: "",
                               useEditorModel: true, editorModelFamily: "", enable: true });
  assert.equal(s.readSettings((key) => ({ enable: false })[key]).enable, false);
  assert.deepEqual(s.initializationOptions(settings),
    { lorekeeper: { debounceMs: 50, codeLensInCode: true, budget: 2000, docsUrl: "", editorModel: false } });
  const published = s.readSettings((key) => ({ docsUrl: " https://docs.example.org/lore " })[key]);
  assert.equal(s.initializationOptions(published).lorekeeper.docsUrl, "https://docs.example.org/lore");
});

test("a workspace not trusted chooses no server: the user's own path settings only", () => {
  const workspace = { "server.path": "/repo/evil/lore", debounceMs: 10 };
  const inspect = (key) => ({ "server.path": { globalValue: "/home/me/lore", workspaceValue: "/repo/evil/lore" } })[key];
  const untrusted = s.readSettings(s.settingReader((key) => workspace[key], inspect, false));
  assert.equal(untrusted.serverPath, "/home/me/lore");
  assert.equal(untrusted.interpreter, "");
  assert.equal(untrusted.debounceMs, 10);  // (settings that choose nothing to run are read as usual)
  const trusted = s.readSettings(s.settingReader((key) => workspace[key], inspect, true));
  assert.equal(trusted.serverPath, "/repo/evil/lore");
});

test("status text shows size against budget and stale count", () => {
  assert.deepEqual(s.statusText({ tokens: 1234, budget: 2000, stale: 0 }), { text: "$(book) Lorekeeper: 1,234 tokens · 0 stale", warning: false });
  assert.deepEqual(s.statusText({ tokens: 2500, budget: 2000, stale: 3 }),
    { text: "$(book) Lorekeeper: 2,500 tokens · $(warning) 3 stale", warning: true });
  // several folders: the figures say whose they are
  assert.equal(s.statusText({ tokens: 10, budget: 2000, stale: 1 }, "api").text, "$(book) Lorekeeper · api: 10 tokens · $(warning) 1 stale");
  assert.equal(s.undoText("undo verify 20261127-062727-caf42f: verified 1 memory", 1),
    "Lorekeeper: undone — verified 1 memory (verify).");
  assert.equal(s.undoText(undefined, 2), "Lorekeeper: undid 2 change(s).");
});

test("compaction offers the server's stages", () => {
  const choices = s.compactChoices(["rules"]);
  assert.equal(choices[0].label, "Compact: rules");
  assert.match(choices[0].description, /deterministic/);
  assert.equal(choices.at(-1).only, "dedup,merge");
});

test("the compaction modal says what the plan does to tokens and what it leaves for review", () => {
  const detail = s.compactDetail({ tokens: { entries: [296, 268], index: [0, 338] }, conflicts: [{}, {}] });
  assert.match(detail, /applied whole or not at all/);
  assert.match(detail, /Tokens in entries: 296 → 268/);
  assert.match(detail, /Tokens in index.md: 0 → 338/);
  assert.match(detail, /2 conflict\(s\) left for review/);
  assert.doesNotMatch(s.compactDetail({}), /conflict/);
});

test("check stale says what it counts, in the status bar's terms", () => {
  assert.equal(s.checkStaleText({ stale: 10, findings: 14, errors: 13 }),
    "Lorekeeper: 10 stale memories (as on the status bar); 14 finding(s) in all, 13 error(s) — the Problems panel lists them.");
  assert.match(s.checkStaleText({ stale: 1 }), /1 stale memory \(/);
});
