// Builds the Lorekeeper server wheel into bundled/, so that the extension can install the server into a
// private environment on a machine that has only Python (no terminal needed). Run by vscode:prepublish.
const { execFileSync } = require("node:child_process");
const { existsSync, mkdirSync, readdirSync, rmSync } = require("node:fs");
const { join, resolve } = require("node:path");

const here = resolve(__dirname, "..");
const project = resolve(here, "..");
const venv = join(project, ".venv", "bin", "python");
const candidates = [process.env.LORE_PYTHON, venv, "python3"].filter(Boolean);
const python = candidates.find((p) => p === "python3" || existsSync(p));
const out = join(here, "bundled");
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
// The project's environment (scripts/setup) has the setuptools pyproject.toml asks for: build with it, no
// index needed. Any other Python may have an older one (a system setuptools refuses the SPDX licence):
// build in isolation, with the build requirements from the index.
const isolation = python === venv ? ["--no-build-isolation"] : [];
execFileSync(python, ["-m", "pip", "wheel", "--quiet", "--no-deps", ...isolation, "-w", out, project],
  { stdio: "inherit" });
const wheels = readdirSync(out).filter((name) => name.endsWith(".whl"));
if (wheels.length !== 1) {
  throw new Error(`expected one wheel in ${out}, found ${wheels.length}`);
}
console.log(`bundled ${wheels[0]}`);
