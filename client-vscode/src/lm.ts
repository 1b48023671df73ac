// The editor's language model, lent to the Lorekeeper server. During a compaction the server sends
// `lorekeeper/chat` requests; the extension answers them through the VS Code Language Model API
// (`vscode.lm`), which asks the user's consent the first time. The vscode API comes in as an
// `EditorModelHost`, so this module runs without VS Code: unit-tested with a fake `vscode.lm`
// (test/lm.test.js).
//
// Privacy: message contents go to the model and back to the server, nowhere else. Errors and log
// lines name the purpose, the model, counts and sizes only; an error message from the model's provider
// that quotes the request is withheld.

export const CHAT_METHOD = "lorekeeper/chat";
/** The JSON-RPC error code of every refusal and failure of `lorekeeper/chat`. */
export const CHAT_ERROR_CODE = -32001;
export const CHAT_TIMEOUT_MS = 120_000;
/** Shown by VS Code in its consent dialog. */
export const JUSTIFICATION = "Lorekeeper compacts your project memory with this model";
/** Added to the instructions when the server asks for JSON (the Language Model API has no JSON mode). */
export const JSON_INSTRUCTION = "Answer with one JSON value and nothing else: no text before or after it, no Markdown code fence.";
/**
 * An answer longer than this many characters per token asked for is cut off (and fails): no tokenizer
 * averages near 8 characters a token on prose, JSON or code, so only a runaway answer reaches it. The
 * server counts the answer's tokens itself and refuses one longer than it asked for.
 */
const CHARS_PER_TOKEN_CAP = 8;

export type ChatRole = "system" | "user" | "assistant";

export interface ChatMessage {
  role: ChatRole;
  content: string;
}

/** The params of `lorekeeper/chat` (server -> client). */
export interface ChatRequest {
  messages: ChatMessage[];
  maxTokens: number;
  json: boolean;
  /** A short human text ("fuse 3 memories"), logged. */
  purpose: string;
}

/** The result of `lorekeeper/chat`: the answer, and the model that wrote it (`vendor/family`, or its id). */
export interface ChatResult {
  text: string;
  model: string;
}

export interface CancellationToken {
  readonly isCancellationRequested: boolean;
  onCancellationRequested(listener: () => unknown): { dispose(): unknown };
}

export interface CancellationSource {
  readonly token: CancellationToken;
  cancel(): void;
  dispose(): void;
}

/** What this module uses of `vscode.LanguageModelChat`; `M` is the editor's message type. */
export interface ChatModel<M> {
  readonly id: string;
  readonly vendor: string;
  readonly family: string;
  sendRequest(messages: M[], options?: { justification?: string }, token?: CancellationToken): PromiseLike<{ text: AsyncIterable<string> }>;
}

export interface ModelSelector {
  vendor?: string;
  family?: string;
}

/** The editor's side, passed in (VS Code in extension.ts, fakes in the tests). */
export interface EditorModelHost<M> {
  /** `vscode.lm`, or undefined in an editor without the Language Model API. */
  lm: { selectChatModels(selector?: ModelSelector): PromiseLike<readonly ChatModel<M>[]> } | undefined;
  /** `vscode.LanguageModelChatMessage.User` / `.Assistant`. */
  user(content: string): M;
  assistant(content: string): M;
  /** The settings as they are now (read at each request, so turning the model off takes effect at once). */
  settings(): { useEditorModel: boolean; editorModelFamily: string };
  /** `new vscode.CancellationTokenSource()`. */
  newCancellationSource(): CancellationSource;
  /** The error a refusal is rejected with (the extension passes vscode-languageclient's ResponseError). */
  error?(code: number, message: string): Error;
  timeoutMs?: number;
  /** One line per request: purpose, model, sizes and outcome — never message contents. */
  log?(line: string): void;
}

/** A refusal or failure of `lorekeeper/chat` when no error factory is given. */
export class ChatError extends Error {
  constructor(readonly code: number, message: string) {
    super(message);
  }
}

/** Whether the editor's model may be offered to the server (`editorModel` of initializationOptions). */
export function editorModelAvailable(useEditorModel: boolean, lm: unknown): boolean {
  return useEditorModel && typeof (lm as { selectChatModels?: unknown } | undefined)?.selectChatModels === "function";
}

/** `lorekeeper.llm.editorModelFamily` as a selector: "" any model, "gpt-4o" a family, "copilot/gpt-4o" a vendor's family. */
export function modelSelector(setting: string): ModelSelector | undefined {
  const value = setting.trim();
  if (!value) {
    return undefined;
  }
  const slash = value.indexOf("/");
  if (slash > 0 && slash < value.length - 1) {
    return { vendor: value.slice(0, slash).trim(), family: value.slice(slash + 1).trim() };
  }
  return { family: value };
}

/** The name a result gives its model: `vendor/family`, or the model's id when it lacks either. */
export function modelName(model: { id: string; vendor: string; family: string }): string {
  return model.vendor && model.family ? `${model.vendor}/${model.family}` : model.id;
}

/** The request's params checked; the name of the first bad field otherwise (never its value). */
export function parseChatRequest(params: unknown): ChatRequest | string {
  if (typeof params !== "object" || params === null) {
    return "params";
  }
  const p = params as Record<string, unknown>;
  if (!Array.isArray(p.messages) || p.messages.length === 0) {
    return "messages";
  }
  const messages: ChatMessage[] = [];
  for (const [i, m] of (p.messages as unknown[]).entries()) {
    const message = (typeof m === "object" && m !== null ? m : {}) as Record<string, unknown>;
    if (message.role !== "system" && message.role !== "user" && message.role !== "assistant") {
      return `messages[${i}].role`;
    }
    if (typeof message.content !== "string") {
      return `messages[${i}].content`;
    }
    messages.push({ role: message.role, content: message.content });
  }
  if (typeof p.maxTokens !== "number" || !Number.isFinite(p.maxTokens) || p.maxTokens <= 0) {
    return "maxTokens";
  }
  if (p.json !== undefined && typeof p.json !== "boolean") {
    return "json";
  }
  if (p.purpose !== undefined && typeof p.purpose !== "string") {
    return "purpose";
  }
  return { messages, maxTokens: Math.floor(p.maxTokens), json: p.json === true, purpose: (p.purpose as string | undefined) ?? "" };
}

/**
 * The messages as the Language Model API takes them: it has user and assistant messages only, so the
 * system messages (and, for JSON, the instruction to answer JSON only) go first in the first user
 * message, between delimiters. A conversation that starts with the assistant gets a user message of
 * its own for them.
 */
export function foldMessages(messages: ChatMessage[], json: boolean): { role: "user" | "assistant"; content: string }[] {
  const instructions = messages.filter((m) => m.role === "system").map((m) => m.content.trim()).filter(Boolean);
  if (json) {
    instructions.push(JSON_INSTRUCTION);
  }
  const rest = messages.filter((m) => m.role !== "system") as { role: "user" | "assistant"; content: string }[];
  if (!instructions.length) {
    return rest.map((m) => ({ ...m }));
  }
  const block = `<instructions>\n${instructions.join("\n\n")}\n</instructions>`;
  if (rest.length && rest[0].role === "user") {
    return [{ role: "user", content: `${block}\n\n${rest[0].content}` }, ...rest.slice(1).map((m) => ({ ...m }))];
  }
  return [{ role: "user", content: block }, ...rest.map((m) => ({ ...m }))];
}

/** A JSON answer without the Markdown code fence some models put around it anyway. */
export function unfence(text: string): string {
  const match = /^\s*```[A-Za-z]*[ \t]*\r?\n([\s\S]*?)\r?\n```\s*$/.exec(text);
  return match ? match[1] : text;
}

/**
 * An error message from the model's provider, fit for the server and the log: one line, at most 200
 * characters, and withheld altogether when it quotes any of the request's messages.
 */
export function safeErrorText(message: string, contents: string[]): string {
  const text = message.replace(/\s+/g, " ").trim();
  if (!text) {
    return "the model gave no reason";
  }
  const window = 16;
  const quotes = contents.some((content) => {
    const flat = content.replace(/\s+/g, " ").trim();
    if (flat.length < window) {
      return flat.length >= 6 && text.includes(flat);
    }
    for (let i = 0; i + window <= text.length; i++) {
      if (flat.includes(text.slice(i, i + window))) {
        return true;
      }
    }
    return false;
  });
  if (quotes) {
    return "the model's error message quotes the request (withheld)";
  }
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}

/** The refusal text for an error of the Language Model API (`LanguageModelError.code`), or of anything else. */
export function failureText(error: unknown, contents: string[]): string {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  if (code === "NoPermissions") {
    return "declined: the user did not allow Lorekeeper to use the editor's language model";
  }
  if (code === "Blocked") {
    return "blocked: the editor's language model refuses Lorekeeper's requests for now (quota or policy)";
  }
  if (code === "NotFound") {
    return "not-found: the editor's language model is gone";
  }
  const message = error instanceof Error ? error.message : typeof error === "string" ? error : "";
  return `failed: ${safeErrorText(message, contents)}`;
}

/** A simple cancellation source, for hosts without one of their own. */
export function cancellationSource(): CancellationSource {
  let cancelled = false;
  const listeners = new Set<() => unknown>();
  return {
    token: {
      get isCancellationRequested() {
        return cancelled;
      },
      onCancellationRequested(listener) {
        listeners.add(listener);
        return { dispose: () => listeners.delete(listener) };
      },
    },
    cancel() {
      if (!cancelled) {
        cancelled = true;
        [...listeners].forEach((listener) => listener());
      }
    },
    dispose() {
      listeners.clear();
    },
  };
}

/**
 * Answer one `lorekeeper/chat` request with the editor's model; rejects with a `CHAT_ERROR_CODE` error
 * whose message starts with disabled, no-model, declined, blocked, not-found or failed. `token` is the
 * request's own (the server cancels it); the host's timeout bounds the whole answer.
 */
export async function answerChat<M>(host: EditorModelHost<M>, params: unknown, token?: CancellationToken): Promise<ChatResult> {
  const started = Date.now();
  const request = parseChatRequest(params);
  const purpose = typeof request === "string" ? "" : request.purpose.replace(/\s+/g, " ").slice(0, 80);
  const label = `lorekeeper/chat${purpose ? ` (${purpose})` : ""}`;
  const refuse = (message: string): Error => {
    host.log?.(`${label}: ${message}`);
    return host.error ? host.error(CHAT_ERROR_CODE, message) : new ChatError(CHAT_ERROR_CODE, message);
  };
  const settings = host.settings();
  if (!settings.useEditorModel) {
    throw refuse("disabled: lorekeeper.llm.useEditorModel is off");
  }
  if (typeof request === "string") {
    throw refuse(`failed: bad request (${request})`);
  }
  const contents = request.messages.map((m) => m.content);
  if (!host.lm) {
    throw refuse("no-model: this editor has no Language Model API");
  }
  const selector = modelSelector(settings.editorModelFamily);
  let models: readonly ChatModel<M>[];
  try {
    models = await host.lm.selectChatModels(selector);
  } catch (error) {
    throw refuse(failureText(error, contents));
  }
  const model = models[0];
  if (!model) {
    const which = selector ? ` of ${settings.editorModelFamily.trim()} (lorekeeper.llm.editorModelFamily)` : "";
    throw refuse(`no-model: no language model${which} is available in this editor`);
  }
  const messages = foldMessages(request.messages, request.json).map((m) => (m.role === "user" ? host.user(m.content) : host.assistant(m.content)));
  const maxChars = request.maxTokens * CHARS_PER_TOKEN_CAP;
  const timeoutMs = host.timeoutMs ?? CHAT_TIMEOUT_MS;

  // Whichever comes first stops the answer: the server's cancellation, the timeout, an overlong answer.
  const source = host.newCancellationSource();
  let stopReason: string | undefined;
  let rejectStopped: (error: Error) => void = () => undefined;
  const stopped = new Promise<never>((_, reject) => { rejectStopped = reject; });
  const stop = (reason: string) => {
    if (stopReason === undefined) {
      stopReason = reason;
      rejectStopped(refuse(reason));
      source.cancel();
    }
  };
  const subscription = token?.onCancellationRequested(() => stop("failed: cancelled by the server"));
  const timer = setTimeout(() => stop(`failed: no answer within ${Math.round(timeoutMs / 1000)} s`), timeoutMs);
  if (token?.isCancellationRequested) {
    stop("failed: cancelled by the server");
  }
  const read = async (): Promise<string> => {
    if (stopReason !== undefined) {
      return "";
    }
    const response = await model.sendRequest(messages, { justification: JUSTIFICATION }, source.token);
    let text = "";
    for await (const fragment of response.text) {
      if (stopReason !== undefined) {
        break;
      }
      text += fragment;
      if (text.length > maxChars) {
        stop(`failed: the answer ran past ${request.maxTokens} tokens`);
        break;
      }
    }
    return text;
  };
  try {
    // `stopped` first: when it has already settled (cancelled before the request), it wins the race.
    const text = await Promise.race([stopped, read().catch((error: unknown) => {
      throw stopReason === undefined ? refuse(failureText(error, contents)) : error;
    })]);
    const name = modelName(model);
    host.log?.(`${label}: ${name}, ${messages.length} message(s) of ${contents.reduce((n, c) => n + c.length, 0)} characters, `
      + `answered ${text.length} characters in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return { text: request.json ? unfence(text) : text, model: name };
  } finally {
    clearTimeout(timer);
    subscription?.dispose();
    source.dispose();
  }
}
