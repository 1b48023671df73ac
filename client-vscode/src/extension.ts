// The Lorekeeper extension: starts `lore serve` (one server per workspace folder), adds the palette
// commands and the status bar item, and answers the servers' `lorekeeper/chat` requests with the
// editor's language model (lm.ts). Everything else (diagnostics, hover, code actions, the compaction
// preview) is the language servers'.
import { execFile } from "child_process";
import * as fs from "fs";
import * as vscode from "vscode";
import {
  ClientCapabilities,
  CloseAction,
  DynamicFeature,
  ErrorAction,
  ExecuteCommandRegistrationOptions,
  ExecuteCommandRequest,
  FeatureState,
  LanguageClient,
  LanguageClientOptions,
  Middleware,
  RegistrationData,
  ResponseError,
  ServerCapabilities,
  ServerOptions,
  State,
  StaticFeature,
} from "vscode-languageclient/node";
import {
  SERVER_COMMAND,
  chooseFolder,
  folderSelector,
  isWithin,
  reconcile,
  routeCommand,
  servingFolder,
  statusFolder,
  unrouteArguments,
} from "./folders";
import { CHAT_METHOD, EditorModelHost, answerChat, editorModelAvailable, modelSelector } from "./lm";
import {
  RESTART_KEYS,
  Status,
  compactArguments,
  compactChoices,
  checkStaleText,
  compactDetail,
  documentSelector,
  initializationOptions,
  journalText,
  managedPaths,
  pythonCandidates,
  pythonIsRecentEnough,
  readSettings,
  settingReader,
  serverCommand,
  startFailureText,
  statusText,
  undoText,
  versionCommand,
} from "./settings";
import { Supervisor } from "./supervisor";
import { ServerCommand } from "./generated";

const PREVIEW_SCHEME = "lorekeeper-preview";
const JOURNAL_SCHEME = "lorekeeper-journal";
const LOADS_SCHEME = "lorekeeper-loads";
const NO_SERVER_TOOLTIP = "The language server is not running: click for what to do.";

/** The journal, as a read-only document with each operation's own time (not the output channel's). */
class JournalDocument implements vscode.TextDocumentContentProvider {
  private text = "";
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly uri = vscode.Uri.parse(`${JOURNAL_SCHEME}:Lorekeeper journal.md`);

  show(text: string): vscode.Uri {
    this.text = text;
    this.changed.fire(this.uri);
    return this.uri;
  }

  provideTextDocumentContent(): string {
    return this.text;
  }
}

/** Read-only documents saying what each agent loads for a file, by file. */
class LoadsDocuments implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  show(path: string, text: string): vscode.Uri {
    const name = path.replace(/\//g, "∕") || "the root";
    const uri = vscode.Uri.parse(`${LOADS_SCHEME}:What agents load for ${name}${name.endsWith(".md") ? "" : ".md"}`);
    this.texts.set(uri.toString(), text);
    this.changed.fire(uri);
    return uri;
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? "Run Lorekeeper: Show What Agents Load for This File again.";
  }
}

/** Read-only documents holding compaction previews, by plan id. */
class PreviewDocuments implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  show(plan: string, text: string): vscode.Uri {
    const uri = vscode.Uri.parse(`${PREVIEW_SCHEME}:Compaction preview ${plan}.md`);
    this.texts.set(uri.toString(), text);
    this.changed.fire(uri);
    return uri;
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? "This preview is gone; run Lorekeeper: Compact Memory again.";
  }
}

/**
 * Takes the place of the client's own `workspace/executeCommand` feature. That feature registers each
 * command the server advertises as a VS Code command, and VS Code refuses a second registration of a
 * name: with one server per folder, every client after the first would fail to start. Here the names
 * are only reported (see `serverCommandsSeen`); code lenses and code actions are routed back to their
 * own folder's server by the middleware (`routed`).
 */
class ServerCommandsFeature implements DynamicFeature<ExecuteCommandRegistrationOptions> {
  private readonly registrations = new Map<string, string[]>();

  get registrationType() {
    return ExecuteCommandRequest.type;
  }

  fillClientCapabilities(capabilities: ClientCapabilities): void {
    capabilities.workspace = capabilities.workspace ?? {};
    capabilities.workspace.executeCommand = { ...capabilities.workspace.executeCommand, dynamicRegistration: true };
  }

  initialize(capabilities: ServerCapabilities): void {
    if (capabilities.executeCommandProvider) {
      this.register({ id: "initialize", registerOptions: { ...capabilities.executeCommandProvider } });
    }
  }

  getState(): FeatureState {
    return { kind: "workspace", id: this.registrationType.method, registrations: this.registrations.size > 0 };
  }

  register(data: RegistrationData<ExecuteCommandRegistrationOptions>): void {
    const commands = data.registerOptions.commands ?? [];
    this.registrations.set(data.id, commands);
    serverCommandsSeen(commands);
  }

  unregister(id: string): void {
    this.registrations.delete(id);
  }

  clear(): void {
    this.registrations.clear();
  }
}

/** A language client for one workspace folder (its server's commands go through ServerCommandsFeature). */
class FolderClient extends LanguageClient {
  registerFeature(feature: StaticFeature | DynamicFeature<any>): void {
    const method = (feature as Partial<DynamicFeature<unknown>>).registrationType?.method;
    super.registerFeature(method === ExecuteCommandRequest.type.method ? new ServerCommandsFeature() : feature);
  }
}

/** A folder's running server: its client and what was registered for it (disposed with it). */
interface FolderServer {
  client: LanguageClient;
  disposables: vscode.Disposable[];
}

let extensionContext: vscode.ExtensionContext;
let output: vscode.LogOutputChannel;
let statusItem: vscode.StatusBarItem;
let supervisor: Supervisor<FolderServer>;
/** Every workspace folder of the window, by URI (a nested one is served by its outer folder's server). */
const folders = new Map<string, vscode.WorkspaceFolder>();
/** Why a folder's server is not running, when it is not (shown once per start, and again on a command). */
const notRunning = new Map<string, string>();
/** Each folder's latest figures for the status bar. */
const statuses = new Map<string, Status>();
/** The folder whose figures the status bar shows. */
let shownFolder: string | undefined;
/** Server commands already registered as VS Code commands (for keybindings and other extensions). */
const serverCommandNames = new Set<string>();
/** Error messages on screen now (the same failure in several folders is shown once). */
const helpOnScreen = new Set<string>();

function settings(folder?: vscode.WorkspaceFolder) {
  const config = vscode.workspace.getConfiguration("lorekeeper", folder?.uri);
  return readSettings(settingReader((key) => config.get(key), (key) => config.inspect(key), vscode.workspace.isTrusted));
}

/** `vscode.lm`, or undefined in an editor without the Language Model API (a fork, a very old build). */
function editorLm(): typeof vscode.lm | undefined {
  const lm = (vscode as { lm?: typeof vscode.lm }).lm;
  return editorModelAvailable(true, lm) ? lm : undefined;
}

/** Whether this editor has a language model the server could borrow (code-server without Copilot has none). */
async function editorHasModel(key: string): Promise<boolean> {
  const lm = editorLm();
  if (!lm) {
    return false;
  }
  try {
    const selector = modelSelector(settings(folders.get(key)).editorModelFamily);
    return (await lm.selectChatModels(selector ?? {})).length > 0;
  } catch {
    return false;
  }
}

/** The editor's model as lm.ts sees it, with the folder's settings read at each request. */
function editorModelHost(key: string): EditorModelHost<vscode.LanguageModelChatMessage> {
  return {
    lm: editorLm(),
    user: (content) => vscode.LanguageModelChatMessage.User(content),
    assistant: (content) => vscode.LanguageModelChatMessage.Assistant(content),
    settings: () => settings(folders.get(key)),
    newCancellationSource: () => new vscode.CancellationTokenSource(),
    error: (code, message) => new ResponseError(code, message),
    log: (line) => output.info(named(key, line)),
  };
}

function storageDir(context: vscode.ExtensionContext): string {
  return context.globalStorageUri.fsPath;
}

/** The folders that have (or are meant to have) a server. */
function served(): string[] {
  return supervisor.keys();
}

/** The served folder that a document or folder URI belongs to. */
function folderOf(uri: vscode.Uri | undefined): string | undefined {
  const folder = uri ? vscode.workspace.getWorkspaceFolder(uri) : undefined;
  return servingFolder(folder?.uri.toString(), served());
}

function activeFolder(): string | undefined {
  return folderOf(vscode.window.activeTextEditor?.document.uri);
}

/** A message naming its folder when the window has several: "Lorekeeper (api): …". */
function named(key: string, text: string): string {
  const name = folders.get(key)?.name;
  if (served().length <= 1 || !name) {
    return text;
  }
  return text.startsWith("Lorekeeper") ? text.replace("Lorekeeper", `Lorekeeper (${name})`) : `${text} (${name})`;
}

/** Run a command; its trimmed output, or the error that stopped it. */
function run(command: string, args: string[], options: { cwd?: string; timeout?: number } = {}): Promise<{ ok: boolean; text: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd: options.cwd, timeout: options.timeout ?? 20000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) {
          const text = (error as NodeJS.ErrnoException).code === "ENOENT" ? `${command}: not found` : `${stderr || error.message}`.trim();
          resolve({ ok: false, text });
        } else {
          resolve({ ok: true, text: `${stdout}`.trim() });
        }
      });
  });
}

/** A failed start: remembered for the status bar and the commands, logged, and offered help for. */
function startFailed(key: string, text: string): undefined {
  notRunning.set(key, text);
  statuses.delete(key);
  output.error(named(key, text));
  void offerHelp(extensionContext, text);
  return undefined;
}

/** The middleware of a folder's client: its commands go back to its server; other folders' file events are not its. */
function routed(key: string): Middleware {
  const route = <T extends vscode.Command | undefined>(command: T): T => (command ? routeCommand(command, key) : command);
  const routeAction = (item: vscode.Command | vscode.CodeAction) => {
    if (typeof (item as vscode.Command).command === "string") {
      return route(item as vscode.Command);
    }
    const action = item as vscode.CodeAction;
    action.command = route(action.command);
    return action;
  };
  return {
    provideCodeLenses: async (document, token, next) => {
      const lenses = await next(document, token);
      lenses?.forEach((lens) => { lens.command = route(lens.command); });
      return lenses;
    },
    resolveCodeLens: async (lens, token, next) => {
      const resolved = await next(lens, token);
      if (resolved) {
        resolved.command = route(resolved.command);
      }
      return resolved;
    },
    provideCodeActions: async (document, range, context, token, next) => {
      const items = await next(document, range, context, token);
      return items?.map(routeAction);
    },
    resolveCodeAction: async (item, token, next) => {
      const resolved = await next(item, token);
      if (resolved) {
        resolved.command = route(resolved.command);
      }
      return resolved;
    },
    workspace: {
      didChangeWatchedFile: (event, next) => (isWithin(key, event.uri) ? next(event) : Promise.resolve()),
    },
  };
}

/** Start the server of one workspace folder; its client, or undefined when it did not start (and why is shown). */
async function startFolder(key: string): Promise<FolderServer | undefined> {
  const folder = folders.get(key);
  if (!folder) {
    return undefined;
  }
  const root = folder.uri.fsPath;
  const current = settings(folder);
  if (!current.enable) {
    output.info(named(key, `Lorekeeper is off for ${root} (lorekeeper.enable).`));
    return undefined;
  }
  const server = serverCommand(current, root, (p) => fs.existsSync(p), process.platform, storageDir(extensionContext));
  output.info(`Server for ${root}: ${server.command} ${server.args.join(" ")} (found: ${server.source})`);
  const version = versionCommand(server);
  const probe = await run(version.command, version.args, { cwd: root });
  if (!probe.ok) {
    return startFailed(key, startFailureText(server, probe.text.split("\n").pop() ?? probe.text));
  }
  output.info(named(key, `Server version: ${probe.text}`));
  const serverOptions: ServerOptions = { command: server.command, args: server.args, options: { cwd: root } };
  const clientOptions: LanguageClientOptions = {
    documentSelector: folderSelector(documentSelector(current), key),
    workspaceFolder: folder,
    initializationOptions: initializationOptions(current, editorModelAvailable(current.useEditorModel, editorLm())),
    outputChannel: output,
    synchronize: { configurationSection: "lorekeeper" },
    middleware: routed(key),
    initializationFailedHandler: (error) => {
      output.error(named(key, `Initialisation failed: ${error}`));
      return false;
    },
    errorHandler: {
      error: () => ({ action: ErrorAction.Continue, handled: true }),
      closed: () => ({ action: CloseAction.DoNotRestart, handled: true,
                       message: named(key, "Lorekeeper: the language server stopped (see the Lorekeeper output). Run Lorekeeper: Restart Server.") }),
    },
  };
  const client = new FolderClient("lorekeeper", named(key, "Lorekeeper"), serverOptions, clientOptions);
  // The server's questions to the editor's model (only while it compacts with it: a user action).
  const lend = client.onRequest(CHAT_METHOD, (params: unknown, token) => {
    const answer = answerChat(editorModelHost(key), params, token);
    vscode.window.setStatusBarMessage("$(sync~spin) Lorekeeper: asking the editor's language model…", answer);
    return answer;
  });
  const disposables = [lend, client.onDidChangeState((event) => {
    if (event.newState === State.Running) {
      notRunning.delete(key);
      void refreshStatus(key);
    } else if (event.newState === State.Stopped) {
      // it stopped by itself (a stop of ours disposes this listener first)
      notRunning.set(key, "Lorekeeper: the language server stopped (see the Lorekeeper output). Run Lorekeeper: Restart Server.");
      statuses.delete(key);
      renderStatus();
    }
  })];
  try {
    await client.start();
    notRunning.delete(key);
    return { client, disposables };
  } catch (error) {
    disposables.forEach((d) => d.dispose());
    return startFailed(key, startFailureText(server, `${error}`));
  }
}

async function stopFolder(key: string, running: FolderServer): Promise<void> {
  running.disposables.forEach((d) => d.dispose());
  statuses.delete(key);
  try {
    await running.client.dispose(2000);
  } catch (error) {
    output.info(named(key, `Stopping the server: ${error}`));
  }
}

/** Start servers for new outer folders and stop those of folders gone from the window. */
async function syncFolders(): Promise<void> {
  folders.clear();
  for (const folder of vscode.workspace.workspaceFolders ?? []) {
    if (folder.uri.scheme === "file") {
      folders.set(folder.uri.toString(), folder);
    }
  }
  const { start, stop } = reconcile(served(), [...folders.keys()]);
  for (const key of stop) {
    notRunning.delete(key);
    statuses.delete(key);
  }
  await Promise.all([...stop.map((key) => supervisor.remove(key)), ...start.map((key) => supervisor.ensure(key))]);
}

/**
 * What a user can do when the server does not start: install it here, point at it, or read how. The
 * same message is not shown again while it is on screen (several folders failing alike), unless asked.
 */
async function offerHelp(context: vscode.ExtensionContext, message: string, force = false): Promise<void> {
  if (helpOnScreen.has(message) && !force) {
    return;
  }
  helpOnScreen.add(message);
  let choice: string | undefined;
  try {
    choice = await vscode.window.showErrorMessage(message, "Install the Server", "Set Server Path", "Open Docs");
  } finally {
    helpOnScreen.delete(message);
  }
  if (choice === "Install the Server") {
    await vscode.commands.executeCommand("lorekeeper.installServer");
  } else if (choice === "Set Server Path") {
    await vscode.commands.executeCommand("workbench.action.openSettings", "lorekeeper.server.path");
  } else if (choice === "Open Docs") {
    await openDocs(context);
  }
}

/**
 * The extension's README in the Markdown preview. Found by name whatever its case: `vsce` packs it as
 * `readme.md`, and a file system that tells case apart (Linux) does not find `README.md` there.
 */
async function openDocs(context: vscode.ExtensionContext): Promise<void> {
  let name = "README.md";
  try {
    name = fs.readdirSync(context.extensionUri.fsPath).find((file) => file.toLowerCase() === "readme.md") ?? name;
  } catch {
    // the folder cannot be listed: the usual name
  }
  await vscode.commands.executeCommand("markdown.showPreview", vscode.Uri.joinPath(context.extensionUri, name));
}

/** Create a private environment (Python 3.11+) and install the server wheel bundled with the extension. */
async function installServer(context: vscode.ExtensionContext): Promise<boolean> {
  const paths = managedPaths(storageDir(context));
  const bundled = vscode.Uri.joinPath(context.extensionUri, "bundled");
  let wheels: string[] = [];
  try {
    wheels = fs.readdirSync(bundled.fsPath).filter((name) => name.endsWith(".whl"));
  } catch {
    // no bundled wheel
  }
  if (!wheels.length) {
    void vscode.window.showErrorMessage("Lorekeeper: this build of the extension carries no server to install; set lorekeeper.server.path.");
    return false;
  }
  return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: "Lorekeeper", cancellable: false },
    async (progress) => {
      progress.report({ message: "looking for Python 3.11 or newer…" });
      let python: string | undefined;
      for (const candidate of [settings().interpreter, ...pythonCandidates()].filter(Boolean)) {
        const found = await run(candidate, ["--version"]);
        if (found.ok && pythonIsRecentEnough(found.text)) {
          python = candidate;
          output.info(`Installing with ${candidate} (${found.text})`);
          break;
        }
      }
      if (!python) {
        void vscode.window.showErrorMessage("Lorekeeper needs Python 3.11 or newer to install its server; none was found on PATH. "
          + "Install Python, or set lorekeeper.python.interpreter.", "Open Docs").then((choice) => {
          if (choice) {
            void openDocs(context);
          }
        });
        return false;
      }
      fs.mkdirSync(storageDir(context), { recursive: true });
      progress.report({ message: "creating a private environment…" });
      const venv = await run(python, ["-m", "venv", paths.venv], { timeout: 120000 });
      if (!venv.ok) {
        output.error(`python -m venv failed: ${venv.text}`);
        void vscode.window.showErrorMessage(`Lorekeeper: could not create its environment (${venv.text.split("\n").pop()}). See the Lorekeeper output.`);
        return false;
      }
      progress.report({ message: "installing the server and its dependencies (about a minute)…" });
      const wheel = vscode.Uri.joinPath(bundled, wheels.sort().at(-1) as string).fsPath;
      // With the `fast` extra (RE2 for gitignore matching) where it installs; without it elsewhere (no wheel).
      let pip = await run(paths.python, ["-m", "pip", "install", "--disable-pip-version-check", `${wheel}[fast]`], { timeout: 900000 });
      output.info(pip.text);
      if (!pip.ok) {
        output.info("installing the server with its `fast` extra failed; installing it without");
        pip = await run(paths.python, ["-m", "pip", "install", "--disable-pip-version-check", wheel], { timeout: 900000 });
        output.info(pip.text);
      }
      if (!pip.ok) {
        void vscode.window.showErrorMessage("Lorekeeper: installing the server failed (see the Lorekeeper output): "
          + pip.text.split("\n").filter(Boolean).pop());
        return false;
      }
      void vscode.window.showInformationMessage("Lorekeeper: the server is installed; starting it.");
      return true;
    });
}

/** Send a command to a folder's server; says so (and returns undefined) when that server is not running. */
async function execute(key: string | undefined, command: string, ...args: unknown[]): Promise<any> {
  const client = key !== undefined ? supervisor.client(key)?.client : undefined;
  if (key === undefined || !client || client.state !== State.Running) {
    const why = (key !== undefined ? notRunning.get(key) : undefined) ?? "Lorekeeper: the language server is not running yet.";
    void vscode.window.showWarningMessage(key !== undefined ? named(key, why) : why, "Restart Server")
      .then((choice) => choice && vscode.commands.executeCommand("lorekeeper.restart"));
    return undefined;
  }
  return client.sendRequest(ExecuteCommandRequest.type, { command, arguments: args });
}

/**
 * The folder a command acts on: the active editor's, else the only one, else the user's choice in a
 * quick pick; undefined when there is none or the user cancels.
 */
async function pickFolder(title: string): Promise<string | undefined> {
  const choice = chooseFolder(served(), activeFolder());
  if ("folder" in choice) {
    return choice.folder;
  }
  if ("ask" in choice) {
    const items = choice.ask.map((key) => ({ label: folders.get(key)?.name ?? key, description: folders.get(key)?.uri.fsPath, key }));
    const picked = await vscode.window.showQuickPick(items, { title, placeHolder: "Which workspace folder?" });
    return picked?.key;
  }
  void vscode.window.showWarningMessage("Lorekeeper: no workspace folder has a language server.");
  return undefined;
}

/** Server commands run by name (a keybinding, another extension): sent to the folder `pickFolder` chooses. */
function serverCommandsSeen(commands: string[]): void {
  for (const command of commands) {
    if (serverCommandNames.has(command) || command === SERVER_COMMAND) {
      continue;
    }
    serverCommandNames.add(command);
    try {
      extensionContext.subscriptions.push(vscode.commands.registerCommand(command, async (...args: unknown[]) => {
        const key = await pickFolder(`Lorekeeper: ${command}`);
        return key === undefined ? undefined : execute(key, command, ...args);
      }));
    } catch (error) {
      output.warn(`Not registering ${command}: ${error}`);
    }
  }
}

function setStatus(text: string, tooltip: string, warning: boolean): void {
  statusItem.text = text;
  statusItem.tooltip = tooltip;
  statusItem.backgroundColor = warning ? new vscode.ThemeColor("statusBarItem.warningBackground") : undefined;
  statusItem.show();
}

/** Show the figures of the active editor's folder (or of the folder shown last, or of the first). */
function renderStatus(): void {
  const keys = served();
  const key = statusFolder(keys, activeFolder(), shownFolder);
  shownFolder = key;
  if (key === undefined) {
    statusItem.hide();
    return;
  }
  const name = keys.length > 1 ? folders.get(key)?.name : undefined;
  const label = name ? `Lorekeeper (${name})` : "Lorekeeper";
  const status = statuses.get(key);
  const why = notRunning.get(key);
  if (why !== undefined) {
    setStatus(`$(error) ${label}: no server`, NO_SERVER_TOOLTIP, true);
  } else if (status) {
    const { text, warning } = statusText(status, name);
    setStatus(text, `${label}: ${status.tokensText ?? `${status.tokens} tokens in entries`}; index.md shows them within `
      + `${status.budget.toLocaleString("en-US")} tokens. ${status.stale} stale memories. Click for the Problems view.`, warning);
  } else if (supervisor.state(key) === "starting" || supervisor.state(key) === "stopping") {
    setStatus(`$(sync~spin) ${label}`, "The language server is starting.", false);
  } else {
    setStatus(`$(book) ${label}`, "Waiting for the language server's figures.", false);
  }
}

/** Ask a folder's server (by default the shown folder's) for its figures, then show the status bar. */
async function refreshStatus(key?: string): Promise<void> {
  const target = key ?? statusFolder(served(), activeFolder(), shownFolder);
  const client = target !== undefined ? supervisor.client(target)?.client : undefined;
  if (target !== undefined && client && client.state === State.Running) {
    try {
      const status = (await client.sendRequest(ExecuteCommandRequest.type, { command: ServerCommand.status, arguments: [] })) as Status | undefined;
      if (status && served().includes(target) && supervisor.client(target)?.client === client) {
        statuses.set(target, status);
      }
    } catch (error) {
      output.appendLine(`status: ${error}`);
    }
  }
  renderStatus();
}

let refreshTimer: ReturnType<typeof setTimeout> | undefined;

/** Refresh the status bar once things are quiet (diagnostics change in bursts). */
function scheduleRefresh(): void {
  if (refreshTimer !== undefined) {
    clearTimeout(refreshTimer);
  }
  refreshTimer = setTimeout(() => {
    refreshTimer = undefined;
    void refreshStatus();
  }, 250);
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  extensionContext = context;
  output = vscode.window.createOutputChannel("Lorekeeper", { log: true });
  statusItem = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 50);
  statusItem.command = "lorekeeper.showProblems";
  context.subscriptions.push(output, statusItem);
  // One supervisor for the extension's life: it serialises the starts and stops of each folder's server.
  supervisor = new Supervisor<FolderServer>({ start: startFolder, stop: stopFolder, changed: () => renderStatus() });

  const register = (name: string, fn: (...args: any[]) => unknown) =>
    context.subscriptions.push(vscode.commands.registerCommand(name, fn));

  // The compaction preview: a read-only document of the plan, one section per operation. The plan is
  // applied by the server as a whole (never as an edit VS Code could apply in part), and only the plan
  // that was previewed: if memory changed meanwhile, the server refuses and asks for a new preview.
  const previews = new PreviewDocuments();
  context.subscriptions.push(vscode.workspace.registerTextDocumentContentProvider(PREVIEW_SCHEME, previews));
  register("lorekeeper.compact", async () => {
    const key = await pickFolder("Lorekeeper: Compact Memory");
    if (key === undefined) {
      return;
    }
    const status = (await execute(key, ServerCommand.status)) as { stages?: string[]; llmFrom?: string } | undefined;
    let stages = status?.stages ?? ["rules"];
    if (stages.includes("llm") && status?.llmFrom === "editor" && !(await editorHasModel(key))) {
      stages = stages.filter((stage) => stage !== "llm");  // the editor lends a model only if it has one
    }
    const choice = await vscode.window.showQuickPick(compactChoices(stages), {
      title: named(key, "Lorekeeper: Compact Memory"),
      placeHolder: "Nothing is written before you accept the preview",
    });
    if (!choice) {
      return;
    }
    const dryRun = () => execute(key, ServerCommand.compact, compactArguments(choice, { dryRun: true }));
    // With a model the dry run takes one call per batch (seconds each): say so while it runs.
    const plan = choice.llm
      ? await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: named(key, "Lorekeeper"),
                                           cancellable: false },
        (progress) => {
          progress.report({ message: "planning the compaction with the language model…" });
          return dryRun();
        })
      : await dryRun();
    if (!plan || plan.applied === false) {
      void vscode.window.showWarningMessage(`Lorekeeper: no plan (${plan?.reason ?? "the server did not answer"}).`);
      return;
    }
    const count = plan.operations?.length ?? 0;
    // what the plan does to the token counts, and what it leaves for review, above the operations
    const summary = compactDetail(plan).split("\n").map((line) => `> ${line}`).join("\n");
    const uri = previews.show(plan.plan, `${summary}\n\n${plan.preview ?? ""}`);
    await vscode.window.showTextDocument(uri, { preview: true, preserveFocus: false });
    // Not modal: the preview stays readable (and scrollable) while the question waits beside it.
    const answer = await vscode.window.showInformationMessage(
      (count ? `Lorekeeper: apply the ${count} operation(s) of the preview?` : "Lorekeeper: nothing to merge. Rewrite index.md and compacted/?")
        + " Applied whole or not at all; every original stays on disk (Lorekeeper: Undo Last Change reverses it).",
      "Apply", "Cancel");
    if (answer !== "Apply") {
      return;
    }
    const result = await execute(key, ServerCommand.compact, compactArguments(choice, { plan: plan.plan }));
    // The preview says what is true now: applied (and how to undo it), or why not.
    previews.show(plan.plan, (result?.applied
      ? `> **Applied** at ${new Date().toLocaleTimeString()}: the ${count} operation(s) below are written. `
        + `"Lorekeeper: Undo Last Change" reverses them.`
      : `> **Not applied**: ${result?.reason ?? "the server did not answer"}. Nothing below was written.`)
      + `\n\n${summary}\n\n${plan.preview ?? ""}`);
    if (result?.applied) {
      void vscode.window.showInformationMessage(
        `Lorekeeper: compaction applied (${count} operation(s)). "Lorekeeper: Undo Last Change" reverses it.`);
    } else {
      void vscode.window.showWarningMessage(`Lorekeeper: compaction not applied (${result?.reason ?? "no answer"}).`);
    }
    await refreshStatus(key);
  });
  register("lorekeeper.checkStale", async () => {
    const key = await pickFolder("Lorekeeper: Check Stale Memories");
    const result = key === undefined ? undefined : await execute(key, ServerCommand.checkStale);
    if (result) {
      void vscode.window.showInformationMessage(named(key as string, checkStaleText(result)));
    }
  });
  register("lorekeeper.verify", async () => {
    const editor = vscode.window.activeTextEditor;
    const key = editor ? folderOf(editor.document.uri) : undefined;
    const entry = editor && key !== undefined
      ? await execute(key, ServerCommand.entryAt, editor.document.uri.toString(), editor.selection.active.line)
      : undefined;
    if (!entry) {
      void vscode.window.showWarningMessage("Lorekeeper: place the cursor on a memory to verify it.");
      return;
    }
    await execute(key, ServerCommand.verify, entry);
    void vscode.window.showInformationMessage(`Lorekeeper: ${entry} verified.`);
  });
  const loadsDocuments = new LoadsDocuments();
  context.subscriptions.push(vscode.workspace.registerTextDocumentContentProvider(LOADS_SCHEME, loadsDocuments));
  register("lorekeeper.showLoads", async () => {
    const editor = vscode.window.activeTextEditor;
    const key = editor ? folderOf(editor.document.uri) : undefined;
    if (!editor || key === undefined) {
      void vscode.window.showWarningMessage("Lorekeeper: open a file of the workspace to see what agents load for it.");
      return;
    }
    const answer = await execute(key, ServerCommand.loads, editor.document.uri.toString());
    if (answer?.path !== undefined && answer?.path !== null) {
      const uri = loadsDocuments.show(answer.path, answer.text ?? "");
      // A read-only Markdown document (not a preview that would follow the next active editor)
      const document = await vscode.workspace.openTextDocument(uri);
      await vscode.languages.setTextDocumentLanguage(document, "markdown");
      await vscode.window.showTextDocument(document, { preview: true });
    } else if (answer?.text) {
      void vscode.window.showWarningMessage(`Lorekeeper: ${answer.text}`);
    }
  });
  const journal = new JournalDocument();
  context.subscriptions.push(vscode.workspace.registerTextDocumentContentProvider(JOURNAL_SCHEME, journal));
  register("lorekeeper.showLog", async () => {
    const key = await pickFolder("Lorekeeper: Show Journal");
    const log = key === undefined ? undefined : await execute(key, ServerCommand.showLog);
    if (log) {
      const uri = journal.show(journalText(log.operations ?? []));
      await vscode.commands.executeCommand("markdown.showPreview", uri);
    }
  });
  register("lorekeeper.installServer", async () => {
    if (await installServer(context)) {
      await supervisor.restartAll();
    }
  });
  register("lorekeeper.undo", async () => {
    const key = await pickFolder("Lorekeeper: Undo Last Change");
    if (key === undefined) {
      return;
    }
    const result = await execute(key, ServerCommand.undo);
    const undone = result?.undone ?? [];
    if (undone.length) {
      void vscode.window.showInformationMessage(undoText(result.reason, undone.length));
    } else if (result?.refused) {
      // the server has shown why
    } else if (result) {
      void vscode.window.showInformationMessage("Lorekeeper: nothing to undo.");
    }
    await refreshStatus(key);
  });
  // Every folder's server: a restart requested while one is under way is folded into it (Supervisor).
  register("lorekeeper.restart", () => supervisor.restartAll());
  // Trusted now: the workspace's own path settings may apply (they were not read before).
  context.subscriptions.push(vscode.workspace.onDidGrantWorkspaceTrust(() => void supervisor.restartAll()));
  register("lorekeeper.showProblems", async () => {
    const key = statusFolder(served(), activeFolder(), shownFolder);
    const why = key !== undefined ? notRunning.get(key) : undefined;
    if (why !== undefined) {
      await offerHelp(context, why, true);
      return;
    }
    await vscode.commands.executeCommand("workbench.actions.view.problems");
  });
  // A code lens or quick fix of one folder's server, run on that server (see `routed`).
  register(SERVER_COMMAND, async (...args: unknown[]) => {
    const call = unrouteArguments(args);
    if (!call) {
      return undefined;
    }
    const client = supervisor.client(call.folder)?.client;
    if (!client || client.state !== State.Running) {
      return execute(call.folder, call.command, ...call.arguments);
    }
    try {
      return await client.sendRequest(ExecuteCommandRequest.type, { command: call.command, arguments: call.arguments });
    } catch (error) {
      return client.handleFailedRequest(ExecuteCommandRequest.type, undefined, error, undefined);
    }
  });

  // Listeners, registered once for the extension's life (never per start).
  context.subscriptions.push(
    vscode.languages.onDidChangeDiagnostics((event) => {
      const shown = shownFolder;
      if (shown !== undefined && event.uris.some((uri) => {
        const owner = folderOf(uri);
        return owner === shown || owner === undefined;
      })) {
        scheduleRefresh();
      }
    }),
    vscode.window.onDidChangeActiveTextEditor(() => {
      const before = shownFolder;
      renderStatus();
      if (shownFolder !== undefined && (shownFolder !== before || !statuses.has(shownFolder))) {
        scheduleRefresh();
      }
    }),
    vscode.workspace.onDidChangeWorkspaceFolders(() => void syncFolders()),
    vscode.workspace.onDidChangeConfiguration((event) => {
      const affected = served().filter((key) => RESTART_KEYS.some((setting) => event.affectsConfiguration(setting, folders.get(key)?.uri)));
      if (affected.length) {
        output.appendLine(`Server settings changed: restarting ${affected.map((key) => folders.get(key)?.name ?? key).join(", ")}.`);
        void Promise.all(affected.map((key) => supervisor.restart(key)));
      }
    }),
    { dispose: () => refreshTimer !== undefined && clearTimeout(refreshTimer) },
  );
  await syncFolders();
}

export async function deactivate(): Promise<void> {
  await supervisor?.close();
}
