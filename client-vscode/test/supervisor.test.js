// Unit tests of the restart guard (src/supervisor.ts, built to dist/supervisor.cjs by `npm test`).
const nodeTest = require("node:test");
const assert = require("node:assert/strict");
const { Supervisor } = require("../dist/supervisor.cjs");

/** Every test fails within seconds rather than hang when a start or stop is never finished. */
const test = (name, fn) => nodeTest(name, { timeout: 5000 }, fn);

/** A promise with its resolve function exposed. */
function deferred() {
  let resolve;
  const promise = new Promise((r) => { resolve = r; });
  return { promise, resolve };
}

/**
 * Fake hooks: each start and stop waits until the test lets it finish (`finishStart`, `finishStop`), so
 * requests can be made while one is under way. Records what happened and how many ran at once.
 */
function harness() {
  const log = [];
  const pendingStarts = [];
  const pendingStops = [];
  let busy = 0;
  let maxBusy = 0;
  let made = 0;
  const hooks = {
    async start(key) {
      busy += 1;
      maxBusy = Math.max(maxBusy, busy);
      log.push(`start ${key}`);
      const gate = deferred();
      pendingStarts.push(gate);
      const ok = await gate.promise;
      busy -= 1;
      if (ok === "throw") {
        throw new Error("spawn lore ENOENT");
      }
      return ok ? `${key}#${++made}` : undefined;
    },
    async stop(key, client) {
      busy += 1;
      maxBusy = Math.max(maxBusy, busy);
      log.push(`stop ${client}`);
      const gate = deferred();
      pendingStops.push(gate);
      await gate.promise;
      busy -= 1;
    },
    changed(key, state) {
      log.push(`${key}: ${state}`);
    },
  };
  const tick = () => new Promise((r) => setImmediate(r));
  return {
    hooks, log, tick,
    get maxBusy() { return maxBusy; },
    get startsWaiting() { return pendingStarts.length; },
    get stopsWaiting() { return pendingStops.length; },
    async finishStart(result = true) {
      await tick();
      assert.ok(pendingStarts.length, "no start is under way");
      pendingStarts.shift().resolve(result);
      await tick();
    },
    async finishStop() {
      await tick();
      assert.ok(pendingStops.length, "no stop is under way");
      pendingStops.shift().resolve();
      await tick();
    },
    actions() {
      return log.filter((line) => line.startsWith("start ") || line.startsWith("stop "));
    },
  };
}

test("a folder's server starts once, and ensure does not start a second", async () => {
  const h = harness();
  const s = new Supervisor(h.hooks);
  const first = s.ensure("a");
  s.ensure("a");
  assert.equal(s.state("a"), "starting");
  await h.finishStart();
  await first;
  assert.equal(s.client("a"), "a#1");
  assert.equal(s.state("a"), "running");
  await s.ensure("a");
  assert.deepEqual(h.actions(), ["start a"]);
});

test("concurrent restarts (a setting change and the command) never run two clients", async () => {
  const h = harness();
  const s = new Supervisor(h.hooks);
  s.ensure("a");
  await h.finishStart();
  const fromSetting = s.restart("a");
  const fromCommand = s.restart("a");
  await h.finishStop();
  await h.finishStart();
  await Promise.all([fromSetting, fromCommand]);
  assert.deepEqual(h.actions(), ["start a", "stop a#1", "start a"]);
  assert.equal(h.maxBusy, 1);
  assert.equal(s.client("a"), "a#2");
  assert.equal(h.startsWaiting + h.stopsWaiting, 0);
});

test("restarts requested while starting are coalesced into one more restart", async () => {
  const h = harness();
  const s = new Supervisor(h.hooks);
  s.ensure("a");
  await h.tick();
  // three requests while the first start is under way: one restart after it, not three
  const waits = [s.restart("a"), s.restart("a"), s.restart("a")];
  await h.finishStart();
  await h.finishStop();
  await h.finishStart();
  await Promise.all(waits);
  assert.deepEqual(h.actions(), ["start a", "stop a#1", "start a"]);
  assert.equal(h.maxBusy, 1);
  assert.equal(s.client("a"), "a#2");
  assert.equal(s.state("a"), "running");
});

test("a failed start leaves a state from which a later restart works", async () => {
  const h = harness();
  const s = new Supervisor(h.hooks);
  const first = s.ensure("a");
  await h.finishStart(false);
  await first;
  assert.equal(s.state("a"), "failed");
  assert.equal(s.client("a"), undefined);
  await s.ensure("a"); // no retry loop by itself
  assert.deepEqual(h.actions(), ["start a"]);
  const again = s.restart("a");
  await h.finishStart("throw"); // a start that throws fails the same way
  await again;
  assert.equal(s.state("a"), "failed");
  const third = s.restart("a");
  await h.finishStart(true);
  await third;
  assert.equal(s.state("a"), "running");
  assert.deepEqual(h.actions(), ["start a", "start a", "start a"]);
});

test("a restart requested while a start is failing tries again after it", async () => {
  const h = harness();
  const s = new Supervisor(h.hooks);
  s.ensure("a");
  await h.tick();
  const retry = s.restart("a"); // e.g. the user fixed lorekeeper.server.path meanwhile
  await h.finishStart(false);
  await h.finishStart(true);
  await retry;
  assert.equal(s.state("a"), "running");
  assert.deepEqual(h.actions(), ["start a", "start a"]);
});

test("a folder removed while its server starts has that server stopped, and is forgotten", async () => {
  const h = harness();
  const s = new Supervisor(h.hooks);
  s.ensure("a");
  await h.tick();
  const gone = s.remove("a");
  await h.finishStart();
  await h.finishStop();
  await gone;
  assert.deepEqual(h.actions(), ["start a", "stop a#1"]);
  assert.equal(s.state("a"), undefined);
  assert.deepEqual(s.keys(), []);
  assert.equal(h.log.at(-1), "a: stopped");
});

test("a folder re-added while its server stops gets a new server", async () => {
  const h = harness();
  const s = new Supervisor(h.hooks);
  s.ensure("a");
  await h.finishStart();
  s.remove("a");
  await h.tick();
  const back = s.ensure("a");
  await h.finishStop();
  await h.finishStart();
  await back;
  assert.deepEqual(h.actions(), ["start a", "stop a#1", "start a"]);
  assert.equal(s.client("a"), "a#2");
});

test("folders are independent: one folder's start does not wait for another's", async () => {
  const h = harness();
  const s = new Supervisor(h.hooks);
  s.ensure("a");
  s.ensure("b");
  await h.tick();
  assert.equal(h.startsWaiting, 2);
  await h.finishStart(true);
  await h.finishStart(false);
  await s.settled();
  assert.equal(s.state("a"), "running");
  assert.equal(s.state("b"), "failed");
  assert.deepEqual(s.keys(), ["a", "b"]);
  const all = s.restartAll();
  await h.finishStop();
  await h.finishStart();
  await h.finishStart();
  await all;
  assert.equal(s.state("a"), "running");
  assert.equal(s.state("b"), "running");
});

test("close stops every server and refuses new starts", async () => {
  const h = harness();
  const s = new Supervisor(h.hooks);
  s.ensure("a");
  s.ensure("b");
  await h.finishStart();
  await h.finishStart();
  const closing = s.close();
  await h.finishStop();
  await h.finishStop();
  await closing;
  await s.ensure("c");
  await s.restart("a");
  assert.deepEqual(s.keys(), []);
  assert.equal(h.startsWaiting, 0);
  assert.deepEqual(h.actions().filter((a) => a.startsWith("start")), ["start a", "start b"]);
});

test("a stop that fails still forgets the client, and the restart goes on", async () => {
  const s = new Supervisor({
    start: async () => "client",
    stop: async () => { throw new Error("Client is not running"); },
  });
  await s.ensure("a");
  await s.restart("a");
  assert.equal(s.state("a"), "running");
});

test("the listener hears each state, and its errors do not stop the loop", async () => {
  const states = [];
  const s = new Supervisor({
    start: async () => "client",
    stop: async () => undefined,
    changed: (key, state) => { states.push(state); throw new Error("listener"); },
  });
  await s.ensure("a");
  await s.restart("a");
  assert.deepEqual(states, ["starting", "running", "stopping", "stopped", "starting", "running"]);
});
