// Client logic that does not need VS Code: how settings become the server's command line and options,
// and what the status bar says. Unit-tested with node:test (test/settings.test.js).

import { MEMORY_FILE_GLOBS } from "./generated";

export interface Settings {
  serverPath: string;
  interpreter: string;
  debounceMs: number;
  codeLensInCode: boolean;
  budget: number;
  /** Where the docs are published (diagnostics link under it); empty: the docs installed with the server. */
  docsUrl: string;
  /** Lend the editor's language model (VS Code's Language Model API) to the server. */
  useEditorModel: boolean;
  /** Which of the editor's models: "" the first available, "gpt-4o" a family, "copilot/gpt-4o" a vendor's family. */
  editorModelFamily: string;
  /** Off: no language server for this folder (nothing shown, nothing checked). */
  enable: boolean;
}

export interface ServerCommand {
  command: string;
  args: string[];
  /** Where it was found: a setting, the workspace's .venv, the environment the extension made, PATH. */
  source: "setting" | "interpreter" | "workspace" | "managed" | "path";
}

export const DEFAULTS: Settings = {
  serverPath: "", interpreter: "", debounceMs: 50, codeLensInCode: false, budget: 2000, docsUrl: "", useEditorModel: true, editorModelFamily: "",
  enable: true,
};

/** Settings from a `get(key, default)` reader (VS Code's WorkspaceConfiguration), wrong types ignored. */
/** Settings a workspace may not choose until it is trusted: what runs (package.json's restrictedConfigurations). */
export const RESTRICTED_KEYS = ["server.path", "python.interpreter"];

/**
 * How to read a setting: in a workspace not trusted, a path setting is the user's own value only (the
 * workspace's is what a cloned repository would choose), read explicitly rather than left to the editor.
 */
export function settingReader(get: (key: string) => unknown, inspect: (key: string) => { globalValue?: unknown } | undefined,
                              trusted: boolean): (key: string) => unknown {
  return (key) => (!trusted && RESTRICTED_KEYS.includes(key) ? inspect(key)?.globalValue : get(key));
}

export function readSettings(get: (key: string) => unknown): Settings {
  const str = (key: string, fallback: string) => (typeof get(key) === "string" ? (get(key) as string).trim() : fallback);
  const bool = (key: string, fallback: boolean) => (typeof get(key) === "boolean" ? (get(key) as boolean) : fallback);
  const int = (key: string, fallback: number, min: number) => {
    const value = get(key);
    return typeof value === "number" && Number.isInteger(value) && value >= min ? value : fallback;
  };
  return {
    serverPath: str("server.path", DEFAULTS.serverPath),
    interpreter: str("python.interpreter", DEFAULTS.interpreter),
    debounceMs: int("debounceMs", DEFAULTS.debounceMs, 0),
    codeLensInCode: bool("codeLensInCode", DEFAULTS.codeLensInCode),
    budget: int("budget", DEFAULTS.budget, 100),
    docsUrl: str("docsUrl", DEFAULTS.docsUrl),
    useEditorModel: bool("llm.useEditorModel", DEFAULTS.useEditorModel),
    editorModelFamily: str("llm.editorModelFamily", DEFAULTS.editorModelFamily),
    enable: bool("enable", DEFAULTS.enable),
  };
}

/** The private environment the extension creates when no server is found (under its global storage). */
export function managedPaths(storageDir: string, platform: string = process.platform): { venv: string; python: string; lore: string } {
  const sep = platform === "win32" ? "\\" : "/";
  const venv = [storageDir.replace(/[\\/]+$/, ""), "server-env"].join(sep);
  const bin = platform === "win32" ? "Scripts" : "bin";
  return {
    venv,
    python: [venv, bin, platform === "win32" ? "python.exe" : "python"].join(sep),
    lore: [venv, bin, platform === "win32" ? "lore.exe" : "lore"].join(sep),
  };
}

/**
 * How to start `lore serve`: an explicit executable, else an interpreter running the module, else the
 * workspace's virtual environment, else the environment the extension installed, else `lore` on PATH.
 */
export function serverCommand(
  settings: Settings,
  workspaceRoot: string | undefined,
  exists: (path: string) => boolean,
  platform: string = process.platform,
  storageDir?: string,
): ServerCommand {
  if (settings.serverPath) {
    return { command: settings.serverPath, args: ["serve"], source: "setting" };
  }
  if (settings.interpreter) {
    return { command: settings.interpreter, args: ["-m", "lorekeeper.cli", "serve"], source: "interpreter" };
  }
  if (workspaceRoot) {
    const sep = platform === "win32" ? "\\" : "/";
    const venv = platform === "win32" ? [".venv", "Scripts", "lore.exe"] : [".venv", "bin", "lore"];
    const candidate = [workspaceRoot.replace(/[\\/]+$/, ""), ...venv].join(sep);
    if (exists(candidate)) {
      return { command: candidate, args: ["serve"], source: "workspace" };
    }
  }
  if (storageDir) {
    const managed = managedPaths(storageDir, platform).lore;
    if (exists(managed)) {
      return { command: managed, args: ["serve"], source: "managed" };
    }
  }
  return { command: platform === "win32" ? "lore.exe" : "lore", args: ["serve"], source: "path" };
}

/** The same server asked for its version (to log it, and to learn before starting whether it runs). */
export function versionCommand(server: ServerCommand): ServerCommand {
  return { ...server, args: server.source === "interpreter" ? ["-m", "lorekeeper.cli", "--version"] : ["--version"] };
}

/** Python interpreters to try for the private environment, best first. */
export function pythonCandidates(platform: string = process.platform): string[] {
  return platform === "win32" ? ["py", "python"] : ["python3.13", "python3.12", "python3.11", "python3", "python"];
}

/** Whether `python --version` output names Python 3.11 or newer. */
export function pythonIsRecentEnough(versionOutput: string): boolean {
  const match = /Python (\d+)\.(\d+)/.exec(versionOutput);
  return !!match && (Number(match[1]) > 3 || (Number(match[1]) === 3 && Number(match[2]) >= 11));
}

/** What a user is told when the server does not start, and what they can do about it. */
export function startFailureText(server: ServerCommand, reason: string): string {
  const where = server.source === "path"
    ? "`lore` is not on PATH, and neither the workspace's .venv nor Lorekeeper's own environment has it"
    : server.source === "setting" ? `lorekeeper.server.path (${server.command}) does not run`
    : server.source === "interpreter" ? `lorekeeper.python.interpreter (${server.command}) cannot run Lorekeeper`
    : `${server.command} does not run`;
  return `Lorekeeper: the language server could not start: ${where} (${reason}).`;
}

/** The documents the server is given: memory files, and every file when code lenses go in code files. */
export function documentSelector(settings: Settings): { scheme: string; language?: string; pattern?: string }[] {
  if (settings.codeLensInCode) {
    return [{ scheme: "file" }];
  }
  // By path, whatever language VS Code gives the file (`.github/copilot-instructions.md` is "instructions",
  // not "markdown"): exactly the files the server reads as memory (generated from its list).
  return MEMORY_FILE_GLOBS.map((pattern) => ({ scheme: "file", pattern }));
}

/** The journal as a document: each operation with its own time, newest first. */
export function journalText(operations: { id: string; time?: string; op: string; reason: string; files?: string[]; undone_by?: string | null }[]): string {
  if (!operations.length) {
    return "# Lorekeeper journal\n\nNo operation yet: nothing has changed memory.\n";
  }
  const lines = ["# Lorekeeper journal", "", "Newest first; `lore undo OP` (or Undo Last Change) reverses one.", ""];
  for (const op of operations) {
    const when = op.time ? op.time.replace("T", " ").slice(0, 19) : "";
    lines.push(`- ${when}  **${op.op}**  \`${op.id}\`${op.undone_by ? `  (undone by \`${op.undone_by}\`)` : ""}`);
    lines.push(`  ${op.reason}`);
    if (op.files && op.files.length) {
      lines.push(`  files: ${op.files.join(", ")}`);
    }
  }
  return lines.join("\n") + "\n";
}

/**
 * What the server reads from initializationOptions. `editorModel`: the server may send `lorekeeper/chat`
 * requests, which the editor's language model answers (the setting is on and this editor has the
 * Language Model API: see lm.ts `editorModelAvailable`).
 */
export function initializationOptions(settings: Settings, editorModel = false): Record<string, unknown> {
  return { lorekeeper: { debounceMs: settings.debounceMs, codeLensInCode: settings.codeLensInCode, budget: settings.budget,
                         docsUrl: settings.docsUrl, editorModel } };
}

/**
 * Settings whose change needs a new server process (the others are sent to the running one).
 * `llm.useEditorModel` is one because `editorModel` is declared once, at initialize, like a capability:
 * the server decides from it whether it offers the "llm" stage. Turned off, requests are refused at once
 * ("disabled"), before the restart is done.
 */
export const RESTART_KEYS = ["lorekeeper.server.path", "lorekeeper.python.interpreter", "lorekeeper.codeLensInCode",
                             "lorekeeper.llm.useEditorModel", "lorekeeper.enable"];

export interface Status {
  tokens: number;
  budget: number;
  stale: number;
  /** "296 tokens in entries, 365 in instruction files": what the figure covers, for the tooltip. */
  tokensText?: string;
}

/**
 * The status bar text: memory size against the budget, and stale memories; with the folder's name first
 * when the window has several folders (the figures are the active editor's folder's).
 */
export function statusText(status: Status, folder?: string): { text: string; warning: boolean } {
  const fmt = (n: number) => n.toLocaleString("en-US");
  const stale = status.stale === 1 ? "1 stale" : `${status.stale} stale`;
  const over = status.tokens > status.budget;
  // the product's name first; the memory's own size (index.md's budget is another figure: the tooltip's)
  return {
    text: `$(book) Lorekeeper${folder ? ` · ${folder}:` : ":"} ${fmt(status.tokens)} tokens · ${status.stale ? "$(warning) " : ""}${stale}`,
    warning: over || status.stale > 0,
  };
}

/** The message after "Undo Last Change", in words: what was undone, not the journal's record. */
export function undoText(reason: string | undefined, count: number): string {
  const match = /^undo (\S+) \S+: (.*)$/s.exec(reason ?? "");
  if (!match) {
    return `Lorekeeper: undid ${count} change(s).`;
  }
  const [, op, what] = match;
  return `Lorekeeper: undone — ${what.replace(/\s+/g, " ").trim()} (${op.replace(/-/g, " ")}).`;
}

export interface CompactChoice {
  label: string;
  description: string;
  only?: string;
  /** Compact with the language model (`llm: true` in lore.compact's arguments). */
  llm?: boolean;
}

/**
 * The compaction choices offered in the palette: the stages the server reports. "llm" (a model is
 * configured for the server, or the editor lends its own) is offered as compacting with the language
 * model.
 */
export function compactChoices(stages: string[]): CompactChoice[] {
  const described: Record<string, string> = {
    rules: "dedup, merge, supersede, fuse, compress, archive, consolidate — deterministic",
    semantic: "semantic duplicates and fusion with local embeddings",
  };
  const choices: CompactChoice[] = stages.map((stage) => (stage === "llm"
    ? { label: "Compact: with the language model",
        description: "the rules' plan, with fused entries written by a language model and checked against their sources",
        llm: true }
    : { label: `Compact: ${stage}`, description: described[stage] ?? stage }));
  return [...choices, { label: "Compact: dedup and merge only", description: "the safest subset", only: "dedup,merge" }];
}

/** lore.compact's arguments object for a choice: the dry run (`{dryRun: true}`) or the apply (`{plan}`). */
export function compactArguments(choice: CompactChoice, step: { dryRun: true } | { plan: string }): Record<string, unknown> {
  return { ...step, only: choice.only, ...(choice.llm ? { llm: true } : {}) };
}

/** What a plan's language model did, in the shape of the server's report (`llm` of a compaction plan). */
interface LLMReport {
  model?: string;
  calls?: number;
  tokens?: number;
  accepted?: unknown[];
  rejected?: unknown[];
  stopped?: string;
}

/** The modal's detail for a compaction plan: its tokens before and after, what is left for review, and what the model did. */
export function compactDetail(plan: { tokens?: Record<string, number[]>; conflicts?: unknown[]; llm?: LLMReport | null }): string {
  const lines = ["The preview shows every operation. It is applied whole or not at all; every original stays on disk."];
  const names: Record<string, string> = { entries: "entries", index: "index.md", compacted: "compacted/" };
  for (const [key, label] of Object.entries(names)) {
    const pair = plan.tokens?.[key];
    if (pair && pair.length === 2) {
      lines.push(`Tokens in ${label}: ${pair[0]} → ${pair[1]}`);
    }
  }
  const conflicts = plan.conflicts?.length ?? 0;
  if (conflicts) {
    lines.push(`${conflicts} conflict(s) left for review (not acted on).`);
  }
  const llm = plan.llm;
  if (llm && typeof llm === "object") {
    const model = llm.model ? ` (${llm.model})` : "";
    lines.push(`Language model${model}: ${llm.calls ?? 0} call(s), ${(llm.tokens ?? 0).toLocaleString("en-US")} tokens; `
      + `${llm.accepted?.length ?? 0} text(s) accepted, ${llm.rejected?.length ?? 0} rejected (their rules' text stands).`);
    if (llm.stopped) {
      lines.push(`The model stopped early: ${llm.stopped}.`);
    }
  }
  return lines.join("\n");
}

/** The message after "Check Stale Memories": the stale count the status bar shows, then every finding. */
export function checkStaleText(result: { stale?: number; findings?: number; errors?: number }): string {
  const stale = result.stale ?? 0;
  const memories = `${stale} stale memor${stale === 1 ? "y" : "ies"}`;
  return `Lorekeeper: ${memories} (as on the status bar); ${result.findings ?? 0} finding(s) in all, `
    + `${result.errors ?? 0} error(s) — the Problems panel lists them.`;
}
