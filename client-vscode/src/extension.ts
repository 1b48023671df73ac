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
  initializationOptions,
  readSettings,
  serverCommand,
  statusText,
} from "./settings";

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

  register("lorekeeper.compact", async () => {
    const status = (await execute("lore.status")) as { stages?: string[] } | undefined;
    const choice = await vscode.window.showQuickPick(compactChoices(status?.stages ?? ["rules"]), {
      title: "Lorekeeper: Compact Memory",
      placeHolder: "Nothing is written before you confirm the preview",
    });
    if (choice) {
      // The server sends the plan as a WorkspaceEdit whose changes need confirmation: VS Code opens the
      // refactor preview, and nothing is written until it is applied.
      const result = await execute("lore.compact", { dryRun: false, only: choice.only });
      if (result && result.applied === false) {
        void vscode.window.showInformationMessage(`Lorekeeper: compaction not applied (${result.reason ?? "cancelled"}).`);
      }
      await refreshStatus();
    }
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
    void vscode.window.showInformationMessage(
      undone.length ? `Lorekeeper: undid ${undone.length} operation(s).` : `Lorekeeper: nothing undone. ${result?.reason ?? ""}`);
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
