// Starting, restarting and stopping one language client per key (a workspace folder), without VS Code:
// unit-tested with node:test (test/supervisor.test.js).
//
// The restart guard. Each key has one worker loop at most; requests never start or stop anything
// themselves, they only change what is wanted (`wanted`, and a generation number that every restart
// raises) and make sure the loop runs. The loop compares what runs with what is wanted and does one
// step at a time (stop the old client, or start a new one), so for one key:
// - two starts never overlap, and no client is ever left running unrecorded;
// - any number of restart requests made while a start or stop is under way are coalesced into one
//   more restart after it (the settings they were made for are read by that start);
// - a failed start is remembered for its generation only: the next restart (or a restart requested
//   while it was failing) starts again;
// - a key removed while its client starts has that client stopped as soon as the start ends.

export type SlotState = "starting" | "running" | "stopping" | "failed" | "stopped";

export interface SupervisorHooks<C> {
  /** Start a client for a key; `undefined` (or a throw) is a failed start, reported by the hook itself. */
  start(key: string): Promise<C | undefined>;
  /** Stop a client that `start` returned (errors are ignored: the client is forgotten either way). */
  stop(key: string, client: C): Promise<void>;
  /** Told after each change of a key's state (the status bar shows it). */
  changed?(key: string, state: SlotState): void;
}

interface Slot<C> {
  /** Whether a client should run for the key. */
  wanted: boolean;
  /** The generation wanted: raised by each restart. */
  requested: number;
  /** The generation the current client was started for. */
  started: number;
  /** The generation whose start failed (0: none). */
  failed: number;
  client?: C;
  phase: "idle" | "starting" | "stopping";
  /** Whether the worker loop runs (cleared synchronously when it ends, so no request is ever missed). */
  active: boolean;
  done: Promise<void>;
}

export class Supervisor<C> {
  private readonly slots = new Map<string, Slot<C>>();
  private closed = false;

  constructor(private readonly hooks: SupervisorHooks<C>) {}

  /** Want a client for the key; starts one unless one runs, is starting, or its last start failed. */
  ensure(key: string): Promise<void> {
    if (this.closed) {
      return Promise.resolve();
    }
    let slot = this.slots.get(key);
    if (!slot) {
      slot = { wanted: true, requested: 1, started: 0, failed: 0, phase: "idle", active: false, done: Promise.resolve() };
      this.slots.set(key, slot);
    } else if (!slot.wanted) {
      slot.wanted = true;
      if (slot.client === undefined) {
        slot.requested += 1;
      }
    }
    return this.kick(key, slot);
  }

  /** Want a freshly started client for the key (a running one is stopped first); coalesced while busy. */
  restart(key: string): Promise<void> {
    if (this.closed) {
      return Promise.resolve();
    }
    const slot = this.slots.get(key);
    if (!slot) {
      return this.ensure(key);
    }
    slot.wanted = true;
    slot.requested += 1;
    return this.kick(key, slot);
  }

  /** Restart every key that is wanted. */
  restartAll(): Promise<void> {
    return Promise.all(this.keys().map((key) => this.restart(key))).then(() => undefined);
  }

  /** Stop the key's client (once any start under way has ended) and forget the key. */
  remove(key: string): Promise<void> {
    const slot = this.slots.get(key);
    if (!slot) {
      return Promise.resolve();
    }
    slot.wanted = false;
    return this.kick(key, slot);
  }

  /** Stop every client and refuse to start any other (deactivation). */
  close(): Promise<void> {
    this.closed = true;
    return Promise.all([...this.slots.keys()].map((key) => this.remove(key))).then(() => undefined);
  }

  /** The key's client when one was started and not stopped since (it may have stopped by itself). */
  client(key: string): C | undefined {
    return this.slots.get(key)?.client;
  }

  state(key: string): SlotState | undefined {
    const slot = this.slots.get(key);
    if (!slot) {
      return undefined;
    }
    if (slot.phase !== "idle") {
      return slot.phase;
    }
    if (slot.client !== undefined) {
      return "running";
    }
    return slot.wanted && slot.failed === slot.requested ? "failed" : "stopped";
  }

  /** The keys a client is wanted for, in the order they were first wanted. */
  keys(): string[] {
    return [...this.slots.entries()].filter(([, slot]) => slot.wanted).map(([key]) => key);
  }

  /** Resolves when no key has work under way. */
  async settled(): Promise<void> {
    while ([...this.slots.values()].some((slot) => slot.active)) {
      await Promise.all([...this.slots.values()].map((slot) => slot.done));
    }
  }

  private kick(key: string, slot: Slot<C>): Promise<void> {
    if (!slot.active) {
      slot.active = true;
      slot.done = this.drive(key, slot);
    }
    return slot.done;
  }

  private notify(key: string): void {
    const state = this.state(key) ?? "stopped";
    try {
      this.hooks.changed?.(key, state);
    } catch {
      // a listener's error must not stop the loop
    }
  }

  private async drive(key: string, slot: Slot<C>): Promise<void> {
    try {
      for (;;) {
        if (slot.client !== undefined) {
          if (slot.wanted && !this.closed && slot.started === slot.requested) {
            return;
          }
          const old = slot.client;
          slot.client = undefined;
          slot.phase = "stopping";
          this.notify(key);
          try {
            await this.hooks.stop(key, old);
          } catch {
            // forgotten either way
          }
          slot.phase = "idle";
          if (slot.wanted) {
            this.notify(key);
          }
          continue;
        }
        if (!slot.wanted || this.closed || slot.failed === slot.requested) {
          return;
        }
        const generation = slot.requested;
        slot.phase = "starting";
        this.notify(key);
        let started: C | undefined;
        try {
          started = await this.hooks.start(key);
        } catch {
          started = undefined;
        }
        slot.phase = "idle";
        if (started === undefined) {
          slot.failed = generation;
        } else {
          slot.client = started;
          slot.started = generation;
        }
        if (slot.wanted && !this.closed) {
          this.notify(key);
        }
      }
    } finally {
      slot.active = false;
      if (!slot.wanted && slot.client === undefined && this.slots.get(key) === slot) {
        this.slots.delete(key);
        this.notify(key);
      }
    }
  }
}
