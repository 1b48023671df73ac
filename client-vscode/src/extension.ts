// The Lorekeeper extension: starts `lore serve`, adds the palette commands and the status bar item.
// Everything else (diagnostics, hover, code actions, the compaction preview) is the language server's.
import * as fs from "fs";
import * as vscode from "vscode";
import {
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
  compactDetail,
  initializationOptions,
  readSettings,
  serverCommand,
  statusText,
} from "./settings";

const PREVIEW_SCHEME = "lorekeeper-preview";

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

function settings() {
  const config = vscode.workspace.getConfiguration("lorekeeper");
  return readSettings((key) => config.get(key));
}

async function start(context: vscode.ExtensionContext): Promise<void> {
  const root = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const current = settings();
  const { command, args } = serverCommand(current, root, (p) => fs.existsSync(p));
  output.appendLine(`Starting ${command} ${args.join(" ")}`);
  const serverOptions: ServerOptions = { command, args, options: { cwd: root } };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: "file", language: "markdown" },
      { scheme: "file", language: "json" },
      { scheme: "file", pattern: "**/*.mdc" },
    ],
    initializationOptions: initializationOptions(current),
    outputChannel: output,
    synchronize: { configurationSection: "lorekeeper" },
  };
  client = new LanguageClient("lorekeeper", "Lorekeeper", serverOptions, clientOptions);
  client.onDidChangeState((event) => {
    if (event.newState === State.Running) {
      void refreshStatus();
    }
  });
  context.subscriptions.push(vscode.languages.onDidChangeDiagnostics(() => void refreshStatus()));
  await client.start();
}

async function stop(): Promise<void> {
  if (client) {
    const running = client;
    client = undefined;
    await running.stop();
  }
}

async function execute(command: string, ...args: unknown[]): Promise<any> {
  if (!client) {
    void vscode.window.showWarningMessage("Lorekeeper: the server is not running.");
    return undefined;
  }
  return client.sendRequest(ExecuteCommandRequest.type, { command, arguments: args });
}

async function refreshStatus(): Promise<void> {
  try {
    const status = (await execute("lore.status")) as Status | undefined;
    if (!status) {
      return;
    }
    const { text, warning } = statusText(status);
    statusItem.text = text;
    statusItem.tooltip = "Lorekeeper: memory size against the index budget, and stale memories. Click for the Problems view.";
    statusItem.backgroundColor = warning ? new vscode.ThemeColor("statusBarItem.warningBackground") : undefined;
    statusItem.show();
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
      void vscode.window.showInformationMessage(
        `Lorekeeper: ${result.findings} finding(s), ${result.errors} error(s) in memory.`);
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
  register("lorekeeper.showLog", async () => {
    const log = await execute("lore.showLog");
    output.clear();
    for (const op of log?.operations ?? []) {
      output.appendLine(`${op.id}  ${op.op.padEnd(11)} ${op.reason}${op.undone_by ? `  (undone by ${op.undone_by})` : ""}`);
    }
    output.show(true);
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
