// Unit tests for the client logic that does not need VS Code (built to dist/settings.cjs by `npm test`).
const test = require("node:test");
const assert = require("node:assert/strict");
const s = require("../dist/settings.cjs");

test("explicit server path wins", () => {
  const settings = { ...s.DEFAULTS, serverPath: "/opt/lore/bin/lore", interpreter: "/usr/bin/python3" };
  assert.deepEqual(s.serverCommand(settings, "/ws", () => true), { command: "/opt/lore/bin/lore", args: ["serve"] });
});

test("interpreter runs the module", () => {
  const settings = { ...s.DEFAULTS, interpreter: "/usr/bin/python3.11" };
  assert.deepEqual(s.serverCommand(settings, "/ws", () => true),
    { command: "/usr/bin/python3.11", args: ["-m", "lorekeeper.cli", "serve"] });
});

test("the workspace .venv is discovered, else lore on PATH", () => {
  const seen = [];
  const found = s.serverCommand(s.DEFAULTS, "/ws/", (p) => { seen.push(p); return true; }, "linux");
  assert.deepEqual(found, { command: "/ws/.venv/bin/lore", args: ["serve"] });
  assert.deepEqual(seen, ["/ws/.venv/bin/lore"]);
  assert.deepEqual(s.serverCommand(s.DEFAULTS, "/ws", () => false, "linux"), { command: "lore", args: ["serve"] });
  assert.deepEqual(s.serverCommand(s.DEFAULTS, "C:\\ws", () => true, "win32"),
    { command: "C:\\ws\\.venv\\Scripts\\lore.exe", args: ["serve"] });
  assert.deepEqual(s.serverCommand(s.DEFAULTS, undefined, () => true, "linux"), { command: "lore", args: ["serve"] });
});

test("settings are read with wrong types ignored", () => {
  const values = { "server.path": "  /x/lore ", debounceMs: "fast", budget: 50, codeLensInCode: true };
  const settings = s.readSettings((key) => values[key]);
  assert.deepEqual(settings, { serverPath: "/x/lore", interpreter: "", debounceMs: 200, codeLensInCode: true, budget: 2000 });
  assert.deepEqual(s.initializationOptions(settings), { lorekeeper: { debounceMs: 200, codeLensInCode: true, budget: 2000 } });
});

test("status text shows size against budget and stale count", () => {
  assert.deepEqual(s.statusText({ tokens: 1234, budget: 2000, stale: 0 }), { text: "$(book) 1,234/2,000 tokens · 0 stale", warning: false });
  assert.deepEqual(s.statusText({ tokens: 2500, budget: 2000, stale: 3 }),
    { text: "$(book) 2,500/2,000 tokens · $(warning) 3 stale", warning: true });
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
