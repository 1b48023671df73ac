// Drives `lore mcp` with the MCP TypeScript SDK, as a Node client (Cursor, VS Code, the Inspector) would,
// and prints what each request got back as one JSON object; tests/e2e/test_mcp_typescript.py judges it.
// Usage: node client.mjs LORE ROOT
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [lore, root] = process.argv.slice(2);
const transport = new StdioClientTransport({ command: lore, args: ["mcp", "--from", root], cwd: root, stderr: "pipe" });
const client = new Client({ name: "ts-sdk-test", version: "1.0.0" });
await client.connect(transport);

const out = {};
const text = (result) => result.content?.[0]?.text ?? "";
const call = async (name, args) => {
  const result = await client.callTool({ name, arguments: args });
  return { isError: Boolean(result.isError), text: text(result) };
};

const { tools } = await client.listTools();
out.tools = Object.fromEntries(tools.map((t) => [t.name, {
  annotations: t.annotations ?? null,
  additionalProperties: t.inputSchema.additionalProperties ?? null,
  undescribed: Object.entries(t.inputSchema.properties ?? {}).filter(([, p]) => !p.description).map(([n]) => n),
}]));

// JavaScript's slice cuts an emoji in half; JSON.stringify sends the lone half as "\ud83d"
const half = "\u{1F680}".slice(0, 1);
out.halfEmoji = await call("store", { content: `Deploys go out with the rocket ${half} script in scripts/deploy.sh.` });
out.stringFalse = await call("compact", { dry_run: "false" });
out.noPlan = await call("compact", { dry_run: false });
out.unknownArgument = await call("compact", { dry_run: true, plan_id: "x" });
out.bigReason = await call("forget", { id: "x", reason: "r".repeat(1_000_000) });
const preview = await call("compact", {});
out.preview = preview;
const plan = JSON.parse(preview.text).plan;
out.applied = await call("compact", { dry_run: false, plan });
out.pages = [];
let offset = 0;
while (offset !== null && out.pages.length < 50) {
  const page = JSON.parse((await call("export", { offset, max_tokens: 600 })).text);
  out.pages.push({ count: page.count, total: page.total, ids: page.entries.map((e) => e.id) });
  offset = page.next_offset;
}
out.recall = await call("recall", { focus: ["scripts/deploy.sh"] });
out.status = JSON.parse((await call("status", {})).text);
await client.close();
process.stdout.write(JSON.stringify(out));
