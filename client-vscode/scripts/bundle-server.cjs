// Builds the Lorekeeper server wheel into bundled/, so that the extension can install the server into a
// private environment on a machine that has only Python (no terminal needed). Run by vscode:prepublish.
const { execFileSync } = require("node:child_process");
const { existsSync, mkdirSync, readdirSync, rmSync } = require("node:fs");
const { join, resolve } = require("node:path");

const here = resolve(__dirname, "..");
const project = resolve(here, "..");
const candidates = [process.env.LORE_PYTHON, join(project, ".venv", "bin", "python"), "python3"].filter(Boolean);
const python = candidates.find((p) => p === "python3" || existsSync(p));
const out = join(here, "bundled");
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
// --no-build-isolation: build with the setuptools already installed (no index needed at packaging time).
execFileSync(python, ["-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "-w", out, project],
  { stdio: "inherit" });
const wheels = readdirSync(out).filter((name) => name.endsWith(".whl"));
if (wheels.length !== 1) {
  throw new Error(`expected one wheel in ${out}, found ${wheels.length}`);
}
console.log(`bundled ${wheels[0]}`);
