// Unit tests of the editor's model lent to the server (src/lm.ts, built to dist/lm.cjs by `npm test`),
// with a fake `vscode.lm`: models that stream scripted fragments, or fail the way VS Code's do.
const nodeTest = require("node:test");
const assert = require("node:assert/strict");
const { ResponseError } = require("vscode-jsonrpc");
const lm = require("../dist/lm.cjs");
const s = require("../dist/settings.cjs");

/** Every test fails within seconds rather than hang when an answer never ends. */
const test = (name, fn) => nodeTest(name, { timeout: 5000 }, fn);

const SECRET = "Deploy with the staging key ZX-4471 from vault path ops/deploy only";

/** VS Code's LanguageModelError: `code` is the static factory's name. */
class LanguageModelError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
  static NoPermissions(message) { return new LanguageModelError("NoPermissions", message); }
  static Blocked(message) { return new LanguageModelError("Blocked", message); }
  static NotFound(message) { return new LanguageModelError("NotFound", message); }
}

/**
 * A fake model: its answer streams `fragments` (each after `delayMs`), stopping when its token is
 * cancelled; or `sendRequest` rejects with `error`, or the stream throws `streamError` midway.
 */
function fakeModel({ id = "m1", vendor = "copilot", family = "gpt-4o", fragments = ["ok"], error, streamError, delayMs = 0 } = {}) {
  const model = {
    id, vendor, family, requests: [],
    async sendRequest(messages, options, token) {
      model.requests.push({ messages, options, token });
      if (error) {
        throw error;
      }
      return {
        text: (async function* () {
          for (const [i, fragment] of fragments.entries()) {
            if (delayMs) {
              await new Promise((resolve) => setTimeout(resolve, delayMs));
            }
            if (token && token.isCancellationRequested) {
              return;
            }
            if (streamError && i === 1) {
              throw streamError;
            }
            yield fragment;
          }
        })(),
      };
    },
  };
  return model;
}

/** A fake `vscode.lm` whose selectChatModels filters its models like VS Code's (vendor, family). */
function fakeLm(models) {
  const selectors = [];
  return {
    selectors,
    async selectChatModels(selector) {
      selectors.push(selector);
      return models.filter((m) => (!selector?.vendor || m.vendor === selector.vendor) && (!selector?.family || m.family === selector.family));
    },
  };
}

/** A host as extension.ts builds it, with fakes; `logs` collects every log line. */
function host(lmApi, overrides = {}) {
  const logs = [];
  return {
    logs,
    lm: lmApi,
    user: (content) => ({ role: 1, content }),
    assistant: (content) => ({ role: 2, content }),
    settings: () => ({ useEditorModel: true, editorModelFamily: "" }),
    newCancellationSource: lm.cancellationSource,
    error: (code, message) => new ResponseError(code, message),
    log: (line) => logs.push(line),
    ...overrides,
  };
}

const request = (over = {}) => ({
  messages: [{ role: "system", content: "You compact memory." }, { role: "user", content: SECRET }],
  maxTokens: 100, json: false, purpose: "fuse 3 memories", ...over,
});

/** The JSON-RPC error a request was rejected with (it must be one, with our code). */
async function refusal(promise) {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ResponseError, `not a ResponseError: ${error}`);
    assert.equal(error.toJson().code, -32001);
    return error.message;
  }
  assert.fail("the request was answered, not refused");
}

test("the answer is the model's fragments joined, with the model's name", async () => {
  const model = fakeModel({ fragments: ['{"ids": ["a"], ', '"text": "one"}'] });
  const h = host(fakeLm([model]));
  const result = await lm.answerChat(h, request());
  assert.deepEqual(result, { text: '{"ids": ["a"], "text": "one"}', model: "copilot/gpt-4o" });
  assert.equal(model.requests[0].options.justification, "Lorekeeper compacts your project memory with this model");
  assert.match(h.logs.at(-1), /^lorekeeper\/chat \(fuse 3 memories\): copilot\/gpt-4o, 1 message\(s\) of \d+ characters, answered 29 characters/);
  // a model without vendor or family is named by its id
  assert.equal(lm.modelName({ id: "local-llama", vendor: "", family: "" }), "local-llama");
});

test("the setting off: refused as disabled, and no model is looked for", async () => {
  const api = fakeLm([fakeModel()]);
  const message = await refusal(lm.answerChat(host(api, { settings: () => ({ useEditorModel: false, editorModelFamily: "" }) }), request()));
  assert.match(message, /^disabled/);
  assert.equal(api.selectors.length, 0);
});

test("no model in the editor, or no Language Model API: refused as no-model", async () => {
  assert.match(await refusal(lm.answerChat(host(fakeLm([])), request())), /^no-model/);
  assert.match(await refusal(lm.answerChat(host(undefined), request())), /^no-model: this editor has no Language Model API/);
  const message = await refusal(lm.answerChat(host(fakeLm([fakeModel()]), { settings: () => ({ useEditorModel: true, editorModelFamily: "o1" }) }), request()));
  assert.match(message, /^no-model: no language model of o1 \(lorekeeper.llm.editorModelFamily\)/);
});

test("the user's refusal, a block, a vanished model and other errors map to their codes", async () => {
  const cases = [
    [LanguageModelError.NoPermissions("consent denied"), /^declined/],
    [LanguageModelError.Blocked("quota"), /^blocked/],
    [LanguageModelError.NotFound("gone"), /^not-found/],
    [new Error("socket hang up"), /^failed: socket hang up$/],
    [new LanguageModelError("Unknown", "server overloaded"), /^failed: server overloaded$/],
  ];
  for (const [error, expected] of cases) {
    assert.match(await refusal(lm.answerChat(host(fakeLm([fakeModel({ error })])), request())), expected);
  }
  // an error in the middle of the stream too
  const midway = fakeModel({ fragments: ["a", "b", "c"], streamError: LanguageModelError.NoPermissions("revoked") });
  assert.match(await refusal(lm.answerChat(host(fakeLm([midway])), request())), /^declined/);
});

test("system messages are folded into the first user message, delimited; the rest keep their roles", async () => {
  const model = fakeModel();
  await lm.answerChat(host(fakeLm([model])), request({
    messages: [
      { role: "system", content: "Rule one." },
      { role: "user", content: "first question" },
      { role: "assistant", content: "first answer" },
      { role: "system", content: "Rule two." },
      { role: "user", content: "second question" },
    ],
  }));
  assert.deepEqual(model.requests[0].messages, [
    { role: 1, content: "<instructions>\nRule one.\n\nRule two.\n</instructions>\n\nfirst question" },
    { role: 2, content: "first answer" },
    { role: 1, content: "second question" },
  ]);
  // a conversation that starts with the assistant gets a user message of its own for the instructions
  assert.deepEqual(lm.foldMessages([{ role: "system", content: "S" }, { role: "assistant", content: "A" }], false),
    [{ role: "user", content: "<instructions>\nS\n</instructions>" }, { role: "assistant", content: "A" }]);
  // no system message, no JSON: the messages as they are
  assert.deepEqual(lm.foldMessages([{ role: "user", content: "U" }], false), [{ role: "user", content: "U" }]);
});

test("json adds the instruction to answer JSON only, and a fence around the answer is removed", async () => {
  const plain = fakeModel();
  await lm.answerChat(host(fakeLm([plain])), request({ json: false }));
  assert.doesNotMatch(plain.requests[0].messages[0].content, /JSON/);
  const fenced = fakeModel({ fragments: ["```json\n", '{"ids": [], "text": "x"}', "\n```\n"] });
  const result = await lm.answerChat(host(fakeLm([fenced])), request({ json: true }));
  const first = fenced.requests[0].messages[0].content;
  assert.ok(first.startsWith("<instructions>\nYou compact memory.\n\nAnswer with one JSON value and nothing else"), first);
  assert.ok(first.endsWith(`</instructions>\n\n${SECRET}`));
  assert.equal(result.text, '{"ids": [], "text": "x"}');
  // without json, the text is returned as the model wrote it
  assert.equal(lm.unfence("no fence"), "no fence");
});

test("the server's cancellation stops the answer and cancels the model's request", async () => {
  const model = fakeModel({ fragments: ["a", "b", "c", "d", "e", "f"], delayMs: 20 });
  const server = lm.cancellationSource();
  const answer = lm.answerChat(host(fakeLm([model])), request(), server.token);
  setTimeout(() => server.cancel(), 30);
  assert.match(await refusal(answer), /^failed: cancelled by the server/);
  assert.equal(model.requests[0].token.isCancellationRequested, true);
  // cancelled before the model was asked: it is never asked
  const idle = fakeModel();
  const already = lm.cancellationSource();
  already.cancel();
  assert.match(await refusal(lm.answerChat(host(fakeLm([idle])), request(), already.token)), /^failed: cancelled/);
  assert.equal(idle.requests.length, 0);
});

test("an answer that takes too long times out, and the model's request is cancelled", async () => {
  const model = fakeModel({ fragments: ["a", "b", "c"], delayMs: 1000 });
  const started = Date.now();
  const message = await refusal(lm.answerChat(host(fakeLm([model]), { timeoutMs: 60 }), request()));
  assert.match(message, /^failed: no answer within 0 s/);
  assert.ok(Date.now() - started < 900, "the timeout did not wait for the model");
  assert.equal(model.requests[0].token.isCancellationRequested, true);
  // a model that never even starts its answer
  const silent = { id: "x", vendor: "v", family: "f", sendRequest: () => new Promise(() => {}) };
  assert.match(await refusal(lm.answerChat(host(fakeLm([silent]), { timeoutMs: 30 }), request())), /^failed: no answer within/);
});

test("a runaway answer is cut off far past maxTokens", async () => {
  const model = fakeModel({ fragments: Array(100).fill("x".repeat(50)) });
  assert.match(await refusal(lm.answerChat(host(fakeLm([model])), request({ maxTokens: 10 }))), /^failed: the answer ran past 10 tokens/);
  assert.equal(model.requests[0].token.isCancellationRequested, true);
});

test("the family setting selects the model: a family, or vendor/family", async () => {
  const models = [fakeModel({ id: "a", family: "gpt-4o" }), fakeModel({ id: "b", family: "claude-3.5-sonnet" }),
                  fakeModel({ id: "c", vendor: "ollama", family: "claude-3.5-sonnet" })];
  const api = fakeLm(models);
  const pick = (family) => lm.answerChat(host(api, { settings: () => ({ useEditorModel: true, editorModelFamily: family }) }), request());
  assert.equal((await pick("")).model, "copilot/gpt-4o");
  assert.equal(api.selectors.at(-1), undefined);
  assert.equal((await pick("claude-3.5-sonnet")).model, "copilot/claude-3.5-sonnet");
  assert.deepEqual(api.selectors.at(-1), { family: "claude-3.5-sonnet" });
  assert.equal((await pick(" ollama/claude-3.5-sonnet ")).model, "ollama/claude-3.5-sonnet");
  assert.deepEqual(api.selectors.at(-1), { vendor: "ollama", family: "claude-3.5-sonnet" });
  assert.equal(models[2].requests.length, 1);
  assert.equal(models[1].requests.length, 1);
});

test("errors and logs carry no message contents, even when the provider quotes the request", async () => {
  const h = host(fakeLm([fakeModel({ error: new Error(`content filtered: "${SECRET}"`) })]));
  const message = await refusal(lm.answerChat(h, request()));
  assert.equal(message, "failed: the model's error message quotes the request (withheld)");
  // a partial quote is withheld too; a plain reason is kept
  assert.match(lm.safeErrorText("rejected near 'staging key ZX-4471 from'", [SECRET]), /withheld/);
  assert.equal(lm.safeErrorText("rate limit exceeded", [SECRET]), "rate limit exceeded");
  assert.equal(lm.safeErrorText("x".repeat(500), []).length, 200);
  // a bad request names the field, not its value
  assert.equal(await refusal(lm.answerChat(h, { ...request(), messages: [{ role: "tool", content: SECRET }] })),
    "failed: bad request (messages[0].role)");
  assert.match(await refusal(lm.answerChat(h, { ...request(), maxTokens: "many" })), /^failed: bad request \(maxTokens\)$/);
  // every log line of every request above and a good one: none holds any of the text
  await lm.answerChat(host(fakeLm([fakeModel({ fragments: [SECRET] })]), { log: (line) => h.logs.push(line) }), request());
  assert.ok(h.logs.length >= 4);
  for (const line of h.logs) {
    assert.doesNotMatch(line, /ZX-4471|staging key|You compact memory/, line);
  }
});

test("editorModel is offered only with the setting on and the Language Model API present; changing the setting restarts", () => {
  const api = fakeLm([]);
  assert.equal(lm.editorModelAvailable(true, api), true);
  assert.equal(lm.editorModelAvailable(false, api), false);
  assert.equal(lm.editorModelAvailable(true, undefined), false);
  assert.equal(lm.editorModelAvailable(true, {}), false);
  const settings = s.readSettings((key) => ({ "llm.useEditorModel": false, "llm.editorModelFamily": " gpt-4o " })[key]);
  assert.equal(settings.useEditorModel, false);
  assert.equal(settings.editorModelFamily, "gpt-4o");
  assert.equal(s.readSettings(() => undefined).useEditorModel, true);
  assert.equal(s.initializationOptions(s.DEFAULTS, true).lorekeeper.editorModel, true);
  assert.equal(s.initializationOptions(s.DEFAULTS, false).lorekeeper.editorModel, false);
  assert.ok(s.RESTART_KEYS.includes("lorekeeper.llm.useEditorModel"));
});

test("the language model choice appears only when the server offers the llm stage, and passes llm: true", () => {
  assert.ok(!s.compactChoices(["rules"]).some((c) => c.llm || /language model/.test(c.label)));
  const choices = s.compactChoices(["rules", "llm"]);
  const llm = choices.filter((c) => c.llm);
  assert.equal(llm.length, 1);
  assert.equal(llm[0].label, "Compact: with the language model");
  assert.deepEqual(s.compactArguments(llm[0], { dryRun: true }), { dryRun: true, only: undefined, llm: true });
  assert.deepEqual(s.compactArguments(llm[0], { plan: "3f2a" }), { plan: "3f2a", only: undefined, llm: true });
  // the other choices say nothing of the model
  assert.deepEqual(s.compactArguments(choices.at(-1), { plan: "3f2a" }), { plan: "3f2a", only: "dedup,merge" });
  assert.ok(!("llm" in s.compactArguments(choices[0], { dryRun: true })));
});

test("the compaction modal says what the model did", () => {
  const detail = s.compactDetail({ llm: { model: "copilot/gpt-4o", calls: 2, tokens: 1234, accepted: [{}], rejected: [{}],
                                          stopped: "declined: the user did not allow it" } });
  assert.match(detail, /Language model \(copilot\/gpt-4o\): 2 call\(s\), 1,234 tokens; 1 text\(s\) accepted, 1 rejected/);
  assert.match(detail, /stopped early: declined/);
  assert.doesNotMatch(s.compactDetail({ llm: null }), /Language model/);
});

test("over JSON-RPC: the server gets the answer, or an error with code -32001, and can cancel", async () => {
  // Two connections over in-memory streams, the way vscode-languageclient registers `onRequest`.
  const { PassThrough } = require("node:stream");
  const rpc = require("vscode-jsonrpc/node");
  const up = new PassThrough();
  const down = new PassThrough();
  const server = rpc.createMessageConnection(new rpc.StreamMessageReader(up), new rpc.StreamMessageWriter(down));
  const client = rpc.createMessageConnection(new rpc.StreamMessageReader(down), new rpc.StreamMessageWriter(up));
  let settings = { useEditorModel: true, editorModelFamily: "" };
  const slow = fakeModel({ id: "slow", family: "slow", fragments: ["a", "b", "c", "d"], delayMs: 30 });
  const api = fakeLm([fakeModel({ fragments: ['{"ok"', ": true}"] }), slow]);
  client.onRequest(lm.CHAT_METHOD, (params, token) => lm.answerChat(host(api, { settings: () => settings }), params, token));
  server.listen();
  client.listen();
  try {
    assert.deepEqual(await server.sendRequest(lm.CHAT_METHOD, request({ json: true })), { text: '{"ok": true}', model: "copilot/gpt-4o" });
    settings = { useEditorModel: false, editorModelFamily: "" };
    await assert.rejects(server.sendRequest(lm.CHAT_METHOD, request()),
      (error) => error.code === -32001 && error.message.startsWith("disabled"));
    settings = { useEditorModel: true, editorModelFamily: "slow" };
    const source = new rpc.CancellationTokenSource();
    const pending = server.sendRequest(lm.CHAT_METHOD, request(), source.token);
    setTimeout(() => source.cancel(), 40);
    await assert.rejects(pending);
    // the client saw the server's $/cancelRequest and cancelled the model's request
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(slow.requests[0].token.isCancellationRequested, true);
  } finally {
    server.dispose();
    client.dispose();
  }
});
