// Client logic that does not need VS Code: how settings become the server's command line and options,
// and what the status bar says. Unit-tested with node:test (test/settings.test.js).

export interface Settings {
  serverPath: string;
  interpreter: string;
  debounceMs: number;
  codeLensInCode: boolean;
  budget: number;
}

export interface ServerCommand {
  command: string;
  args: string[];
}

export const DEFAULTS: Settings = { serverPath: "", interpreter: "", debounceMs: 200, codeLensInCode: false, budget: 2000 };

/** Settings from a `get(key, default)` reader (VS Code's WorkspaceConfiguration), wrong types ignored. */
export function readSettings(get: (key: string) => unknown): Settings {
  const str = (key: string, fallback: string) => (typeof get(key) === "string" ? (get(key) as string).trim() : fallback);
  const int = (key: string, fallback: number, min: number) => {
    const value = get(key);
    return typeof value === "number" && Number.isInteger(value) && value >= min ? value : fallback;
  };
  return {
    serverPath: str("server.path", DEFAULTS.serverPath),
    interpreter: str("python.interpreter", DEFAULTS.interpreter),
    debounceMs: int("debounceMs", DEFAULTS.debounceMs, 0),
    codeLensInCode: typeof get("codeLensInCode") === "boolean" ? (get("codeLensInCode") as boolean) : DEFAULTS.codeLensInCode,
    budget: int("budget", DEFAULTS.budget, 100),
  };
}

/**
 * How to start `lore serve`: an explicit executable, else an interpreter running the module, else the
 * workspace's virtual environment, else `lore` on PATH.
 */
export function serverCommand(
  settings: Settings,
  workspaceRoot: string | undefined,
  exists: (path: string) => boolean,
  platform: string = process.platform,
): ServerCommand {
  if (settings.serverPath) {
    return { command: settings.serverPath, args: ["serve"] };
  }
  if (settings.interpreter) {
    return { command: settings.interpreter, args: ["-m", "lorekeeper.cli", "serve"] };
  }
  if (workspaceRoot) {
    const sep = platform === "win32" ? "\\" : "/";
    const venv = platform === "win32" ? [".venv", "Scripts", "lore.exe"] : [".venv", "bin", "lore"];
    const candidate = [workspaceRoot.replace(/[\\/]+$/, ""), ...venv].join(sep);
    if (exists(candidate)) {
      return { command: candidate, args: ["serve"] };
    }
  }
  return { command: platform === "win32" ? "lore.exe" : "lore", args: ["serve"] };
}

/** What the server reads from initializationOptions. */
export function initializationOptions(settings: Settings): Record<string, unknown> {
  return { lorekeeper: { debounceMs: settings.debounceMs, codeLensInCode: settings.codeLensInCode, budget: settings.budget } };
}

/** Settings whose change needs a new server process (the others are sent to the running one). */
export const RESTART_KEYS = ["lorekeeper.server.path", "lorekeeper.python.interpreter"];

export interface Status {
  tokens: number;
  budget: number;
  stale: number;
}

/** The status bar text: memory size against the budget, and stale memories. */
export function statusText(status: Status): { text: string; warning: boolean } {
  const fmt = (n: number) => n.toLocaleString("en-US");
  const stale = status.stale === 1 ? "1 stale" : `${status.stale} stale`;
  const over = status.tokens > status.budget;
  return {
    text: `$(book) ${fmt(status.tokens)}/${fmt(status.budget)} tokens · ${status.stale ? "$(warning) " : ""}${stale}`,
    warning: over || status.stale > 0,
  };
}

/** The compaction choices offered in the palette: the stages the server reports. */
export function compactChoices(stages: string[]): { label: string; description: string; only?: string }[] {
  const described: Record<string, string> = {
    rules: "dedup, merge, supersede, fuse, compress, archive, consolidate — deterministic",
    semantic: "semantic duplicates and fusion with local embeddings",
    llm: "fusion, staleness judgement and the index with a language model",
  };
  const choices = stages.map((stage) => ({ label: `Compact: ${stage}`, description: described[stage] ?? stage }));
  return [...choices, { label: "Compact: dedup and merge only", description: "the safest subset", only: "dedup,merge" }];
}

/** The modal's detail for a compaction plan: its tokens before and after, and what is left for review. */
export function compactDetail(plan: { tokens?: Record<string, number[]>; conflicts?: unknown[] }): string {
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
  return lines.join("\n");
}
