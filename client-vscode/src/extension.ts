// The Lorekeeper extension: starts `lore serve`, adds the palette commands and the status bar item.
// Everything else (diagnostics, hover, code actions, the compaction preview) is the language server's.
import { execFile } from "child_process";
import * as fs from "fs";
import * as vscode from "vscode";
import {
  CloseAction,
  ErrorAction,
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  State,
} from "vscode-languageclient/node";
import {
  RESTART_KEYS,
  Status,
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
  serverCommand,
  startFailureText,
  statusText,
  versionCommand,
} from "./settings";

const PREVIEW_SCHEME = "lorekeeper-preview";
const JOURNAL_SCHEME = "lorekeeper-journal";

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

let client: LanguageClient | undefined;
let output: vscode.LogOutputChannel;
let statusItem: vscode.StatusBarItem;
/** Why the server is not running, when it is not (shown once per start, and again on a command). */
let notRunning: string | undefined;

function settings() {
  const config = vscode.workspace.getConfiguration("lorekeeper");
  return readSettings((key) => config.get(key));
}

function storageDir(context: vscode.ExtensionContext): string {
  return context.globalStorageUri.fsPath;
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

async function start(context: vscode.ExtensionContext): Promise<void> {
  const root = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const current = settings();
  const server = serverCommand(current, root, (p) => fs.existsSync(p), process.platform, storageDir(context));
  output.info(`Server: ${server.command} ${server.args.join(" ")} (found: ${server.source})`);
  const version = versionCommand(server);
  const probe = await run(version.command, version.args, { cwd: root });
  if (!probe.ok) {
    notRunning = startFailureText(server, probe.text.split("\n").pop() ?? probe.text);
    output.error(notRunning);
    void offerHelp(context, notRunning);
    setStatus("$(error) Lorekeeper: no server", "The language server is not running: click for what to do.", true);
    return;
  }
  output.info(`Server version: ${probe.text}`);
  const serverOptions: ServerOptions = { command: server.command, args: server.args, options: { cwd: root } };
  const clientOptions: LanguageClientOptions = {
    documentSelector: documentSelector(current),
    initializationOptions: initializationOptions(current),
    outputChannel: output,
    synchronize: { configurationSection: "lorekeeper" },
    initializationFailedHandler: (error) => {
      output.error(`Initialisation failed: ${error}`);
      return false;
    },
    errorHandler: {
      error: () => ({ action: ErrorAction.Continue, handled: true }),
      closed: () => ({ action: CloseAction.DoNotRestart, handled: true,
                       message: "Lorekeeper: the language server stopped (see the Lorekeeper output). Run Lorekeeper: Restart Server." }),
    },
  };
  const created = new LanguageClient("lorekeeper", "Lorekeeper", serverOptions, clientOptions);
  created.onDidChangeState((event) => {
    if (event.newState === State.Running) {
      void refreshStatus();
    }
  });
  client = created;
  try {
    await created.start();
    notRunning = undefined;
  } catch (error) {
    client = undefined;
    notRunning = startFailureText(server, `${error}`);
    output.error(notRunning);
    void offerHelp(context, notRunning);
    setStatus("$(error) Lorekeeper: no server", "The language server is not running: click for what to do.", true);
  }
}

async function stop(): Promise<void> {
  const running = client;
  client = undefined;
  if (running) {
    try {
      await running.stop(2000);
    } catch (error) {
      output.info(`Stopping the server: ${error}`);
    }
  }
}

/** What a user can do when the server does not start: install it here, point at it, or read how. */
async function offerHelp(context: vscode.ExtensionContext, message: string): Promise<void> {
  const choice = await vscode.window.showErrorMessage(message, "Install the Server", "Set Server Path", "Open Docs");
  if (choice === "Install the Server") {
    await vscode.commands.executeCommand("lorekeeper.installServer");
  } else if (choice === "Set Server Path") {
    await vscode.commands.executeCommand("workbench.action.openSettings", "lorekeeper.server.path");
  } else if (choice === "Open Docs") {
    await vscode.commands.executeCommand("markdown.showPreview", vscode.Uri.joinPath(context.extensionUri, "README.md"));
  }
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
            void vscode.commands.executeCommand("markdown.showPreview", vscode.Uri.joinPath(context.extensionUri, "README.md"));
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
      const pip = await run(paths.python, ["-m", "pip", "install", "--disable-pip-version-check", wheel], { timeout: 900000 });
      output.info(pip.text);
      if (!pip.ok) {
        void vscode.window.showErrorMessage("Lorekeeper: installing the server failed (see the Lorekeeper output): "
          + pip.text.split("\n").filter(Boolean).pop());
        return false;
      }
      void vscode.window.showInformationMessage("Lorekeeper: the server is installed; starting it.");
      return true;
    });
}

async function execute(command: string, ...args: unknown[]): Promise<any> {
  if (!client || client.state !== State.Running) {
    void vscode.window.showWarningMessage(notRunning ?? "Lorekeeper: the language server is not running yet.", "Restart Server")
      .then((choice) => choice && vscode.commands.executeCommand("lorekeeper.restart"));
    return undefined;
  }
  return client.sendRequest(ExecuteCommandRequest.type, { command, arguments: args });
}

function setStatus(text: string, tooltip: string, warning: boolean): void {
  statusItem.text = text;
  statusItem.tooltip = tooltip;
  statusItem.backgroundColor = warning ? new vscode.ThemeColor("statusBarItem.warningBackground") : undefined;
  statusItem.show();
}

async function refreshStatus(): Promise<void> {
  try {
    if (!client || client.state !== State.Running) {
      return;
    }
    const status = (await execute("lore.status")) as Status | undefined;
    if (!status) {
      return;
    }
    const { text, warning } = statusText(status);
    setStatus(text, `Lorekeeper: ${status.tokensText ?? `${status.tokens} tokens in entries`} (the budget is index.md's); `
      + `${status.stale} stale memories. Click for the Problems view.`, warning);
  } catch (error) {
    output.appendLine(`status: ${error}`);
  }
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel("Lorekeeper", { log: true });
  statusItem = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 50);
  statusItem.command = "lorekeeper.showProblems";
  context.subscriptions.push(output, statusItem);

  const register = (name: string, fn: (...args: any[]) => unknown) =>
    context.subscriptions.push(vscode.commands.registerCommand(name, fn));

  // The compaction preview: a read-only document of the plan, one section per operation. The plan is
  // applied by the server as a whole (never as an edit VS Code could apply in part), and only the plan
  // that was previewed: if memory changed meanwhile, the server refuses and asks for a new preview.
  const previews = new PreviewDocuments();
  context.subscriptions.push(vscode.workspace.registerTextDocumentContentProvider(PREVIEW_SCHEME, previews));
  register("lorekeeper.compact", async () => {
    const status = (await execute("lore.status")) as { stages?: string[] } | undefined;
    const choice = await vscode.window.showQuickPick(compactChoices(status?.stages ?? ["rules"]), {
      title: "Lorekeeper: Compact Memory",
      placeHolder: "Nothing is written before you accept the preview",
    });
    if (!choice) {
      return;
    }
    const plan = await execute("lore.compact", { dryRun: true, only: choice.only });
    if (!plan || plan.applied === false) {
      void vscode.window.showWarningMessage(`Lorekeeper: no plan (${plan?.reason ?? "the server did not answer"}).`);
      return;
    }
    const count = plan.operations?.length ?? 0;
    const uri = previews.show(plan.plan, plan.preview);
    await vscode.window.showTextDocument(uri, { preview: true, preserveFocus: false });
    const answer = await vscode.window.showInformationMessage(
      count ? `Apply ${count} compaction operation(s)?` : "Nothing to merge: rewrite index.md and compacted/?",
      { modal: true, detail: compactDetail(plan) }, "Apply");
    if (answer !== "Apply") {
      return;
    }
    const result = await execute("lore.compact", { plan: plan.plan, only: choice.only });
    if (result?.applied) {
      void vscode.window.showInformationMessage(
        `Lorekeeper: compaction applied (${count} operation(s)). "Lorekeeper: Undo Last Change" reverses it.`);
    } else {
      void vscode.window.showWarningMessage(`Lorekeeper: compaction not applied (${result?.reason ?? "no answer"}).`);
    }
    await refreshStatus();
  });
  register("lorekeeper.checkStale", async () => {
    const result = await execute("lore.checkStale");
    if (result) {
      void vscode.window.showInformationMessage(checkStaleText(result));
    }
  });
  register("lorekeeper.verify", async () => {
    const editor = vscode.window.activeTextEditor;
    const entry = editor
      ? await execute("lore.entryAt", editor.document.uri.toString(), editor.selection.active.line)
      : undefined;
    if (!entry) {
      void vscode.window.showWarningMessage("Lorekeeper: place the cursor on a memory to verify it.");
      return;
    }
    await execute("lore.verify", entry);
    void vscode.window.showInformationMessage(`Lorekeeper: ${entry} verified.`);
  });
  context.subscriptions.push(vscode.languages.onDidChangeDiagnostics(() => void refreshStatus()));
  const journal = new JournalDocument();
  context.subscriptions.push(vscode.workspace.registerTextDocumentContentProvider(JOURNAL_SCHEME, journal));
  register("lorekeeper.showLog", async () => {
    const log = await execute("lore.showLog");
    if (log) {
      const uri = journal.show(journalText(log.operations ?? []));
      await vscode.commands.executeCommand("markdown.showPreview", uri);
    }
  });
  register("lorekeeper.installServer", async () => {
    if (await installServer(context)) {
      await stop();
      await start(context);
    }
  });
  register("lorekeeper.undo", async () => {
    const result = await execute("lore.undo");
    const undone = result?.undone ?? [];
    if (undone.length) {
      void vscode.window.showInformationMessage(`Lorekeeper: ${result.reason ?? `undid ${undone.length} operation(s)`}.`);
    } else if (result?.refused) {
      // the server has shown why
    } else {
      void vscode.window.showInformationMessage("Lorekeeper: nothing to undo.");
    }
    await refreshStatus();
  });
  register("lorekeeper.restart", async () => {
    await stop();
    await start(context);
  });
  register("lorekeeper.showProblems", async () => {
    if (notRunning) {
      await offerHelp(context, notRunning);
      return;
    }
    await vscode.commands.executeCommand("workbench.actions.view.problems");
  });
  context.subscriptions.push(vscode.workspace.onDidChangeConfiguration(async (event) => {
    if (RESTART_KEYS.some((key) => event.affectsConfiguration(key))) {
      output.appendLine("Server settings changed: restarting.");
      await stop();
      await start(context);
    }
  }));
  await start(context);
}

export async function deactivate(): Promise<void> {
  await stop();
}
