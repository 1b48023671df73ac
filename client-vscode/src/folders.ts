// Multi-root workspaces without VS Code: which workspace folders get a server of their own, which
// folder a command or a document belongs to, each folder's document selector, and how commands from
// a folder's server find their way back to it. Unit-tested with node:test (test/folders.test.js).
//
// Folders are named by their URI as VS Code writes it (`folder.uri.toString()`).

/** Whether `inner` (a folder or file URI) is `outer` or inside it. */
export function isWithin(outer: string, inner: string): boolean {
  const base = outer.replace(/\/+$/, "");
  return inner === base || inner.startsWith(base + "/");
}

/**
 * The folders that get a server of their own: every workspace folder that is not inside another one.
 * A folder nested in another is served by the outer folder's server (its files match both folders, and
 * two servers would report every problem twice), as VS Code's multi-root sample does.
 */
export function servedFolders(folders: readonly string[]): string[] {
  const unique = [...new Set(folders)];
  return unique.filter((folder) => !unique.some((other) => other !== folder && isWithin(other, folder)));
}

/** The served folder a folder or file URI belongs to (the outermost one holding it), if any. */
export function servingFolder(uri: string | undefined, served: readonly string[]): string | undefined {
  if (uri === undefined) {
    return undefined;
  }
  return served.filter((folder) => isWithin(folder, uri)).sort((a, b) => a.length - b.length)[0];
}

/** What to start and stop when the workspace folders change: servers for new outer folders, none for gone ones. */
export function reconcile(running: readonly string[], folders: readonly string[]): { start: string[]; stop: string[] } {
  const wanted = servedFolders(folders);
  return {
    start: wanted.filter((folder) => !running.includes(folder)),
    stop: running.filter((folder) => !wanted.includes(folder)),
  };
}

export type FolderChoice = { folder: string } | { ask: string[] } | { none: true };

/**
 * The folder a command acts on: the active editor's, else the only one, else the user is asked to
 * pick among them (none when no folder has a server).
 */
export function chooseFolder(served: readonly string[], active: string | undefined): FolderChoice {
  const mine = servingFolder(active, served);
  if (mine !== undefined) {
    return { folder: mine };
  }
  if (served.length === 1) {
    return { folder: served[0] };
  }
  return served.length ? { ask: [...served] } : { none: true };
}

/**
 * The folder whose figures the status bar shows: the active editor's, else the one shown last (while it
 * has a server), else the first.
 */
export function statusFolder(served: readonly string[], active: string | undefined, shown: string | undefined): string | undefined {
  return servingFolder(active, served) ?? (shown !== undefined && served.includes(shown) ? shown : served[0]);
}

/** A document filter whose pattern is relative to a folder (the protocol's RelativePattern). */
export interface FolderDocumentFilter {
  scheme?: string;
  language?: string;
  pattern: { baseUri: string; pattern: string };
}

/** A document selector restricted to one folder: each filter's pattern becomes relative to the folder. */
export function folderSelector(selector: readonly { scheme?: string; language?: string; pattern?: string }[], folder: string): FolderDocumentFilter[] {
  return selector.map((filter) => ({ ...filter, pattern: { baseUri: folder, pattern: filter.pattern ?? "**/*" } }));
}

/** The extension's command that runs a server's command on the server of the folder it came from. */
export const SERVER_COMMAND = "lorekeeper.serverCommand";

/**
 * A command from a folder's server (a code lens, a quick fix), rewritten to go back to that server: each
 * server advertises the same command names, which VS Code lets only one client register.
 */
export function routeCommand<T extends { command: string; arguments?: unknown[] }>(command: T, folder: string): T {
  if (command.command === SERVER_COMMAND) {
    return command;
  }
  return { ...command, command: SERVER_COMMAND, arguments: [folder, command.command, ...(command.arguments ?? [])] };
}

/** The folder, server command and arguments of a routed command's arguments (undefined if malformed). */
export function unrouteArguments(args: readonly unknown[]): { folder: string; command: string; arguments: unknown[] } | undefined {
  const [folder, command, ...rest] = args;
  if (typeof folder !== "string" || typeof command !== "string") {
    return undefined;
  }
  return { folder, command, arguments: rest };
}
