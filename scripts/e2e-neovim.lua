-- Drives `lore serve` with Neovim's own LSP client (0.7+) on a workspace prepared by scripts/e2e-neovim:
-- diagnostics on CLAUDE.md, the provenance hover, and the "Update reference" code action applied.
local lore, root, out = os.getenv("LORE"), os.getenv("WORKSPACE"), os.getenv("RESULT")
local results = {}
local function check(name, ok, detail)
  table.insert(results, (ok and "ok " or "FAIL ") .. name .. (detail and (": " .. detail) or ""))
end

local client_id = vim.lsp.start_client({ cmd = { lore, "serve" }, root_dir = root, name = "lorekeeper" })
vim.cmd("edit " .. root .. "/CLAUDE.md")
local buf = vim.api.nvim_get_current_buf()
vim.lsp.buf_attach_client(buf, client_id)

local got = vim.wait(10000, function()
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    if d.source == "lorekeeper" and d.code == "stale-script" then return true end
  end
  return false
end, 100)
check("diagnostics", got)
local lines = {}
for _, d in ipairs(vim.diagnostic.get(buf)) do
  table.insert(lines, (d.lnum + 1) .. ":" .. tostring(d.code))
end
check("diagnostic lines", vim.tbl_contains(lines, "10:stale-script") and vim.tbl_contains(lines, "16:moved-path"),
  table.concat(lines, ","))

local hover = vim.lsp.buf_request_sync(buf, "textDocument/hover",
  { textDocument = { uri = vim.uri_from_bufnr(buf) }, position = { line = 15, character = 3 } }, 5000)
local text = ""
for _, r in pairs(hover or {}) do
  if r.result and r.result.contents then text = r.result.contents.value or "" end
end
check("hover", text:find("Memory `CLAUDE.md:16`", 1, true) ~= nil and text:find("**moved**", 1, true) ~= nil, text:sub(1, 80))

local params = {
  textDocument = { uri = vim.uri_from_bufnr(buf) },
  range = { start = { line = 15, character = 0 }, ["end"] = { line = 15, character = 0 } },
  context = { diagnostics = vim.lsp.diagnostic.get_line_diagnostics(buf, 15) },
}
local actions = vim.lsp.buf_request_sync(buf, "textDocument/codeAction", params, 5000)
local chosen
for _, r in pairs(actions or {}) do
  for _, a in ipairs(r.result or {}) do
    if a.title == "Update reference to src/lib/log.ts" then chosen = a end
  end
end
check("code action offered", chosen ~= nil)
if chosen then
  local client = vim.lsp.get_client_by_id(client_id)
  local reply = client.request_sync("workspace/executeCommand",
    { command = chosen.command.command, arguments = chosen.command.arguments }, 5000, buf)
  check("code action applied", reply and reply.result and reply.result.operation ~= nil)
  local file = io.open(root .. "/CLAUDE.md"):read("*a")
  check("file updated", file:find("`src/lib/log.ts`", 1, true) ~= nil)
end

local handle = io.open(out, "w")
handle:write(table.concat(results, "\n") .. "\n")
handle:close()
vim.lsp.stop_client(client_id)
vim.cmd("qall!")
