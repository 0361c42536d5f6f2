// @ts-check
// One update at a time: changes that arrive while an update runs are folded into one more
// pass, so a burst of keystrokes costs one model run per pass, not one per key. An update
// asks for that pass itself (`again()`) when what it computed went stale meanwhile.

export class Pump {
  /**
   * @param {(pump: Pump) => Promise<void>} update
   * @param {(err: any) => void} onError
   */
  constructor(update, onError) {
    this.update = update;
    this.onError = onError;
    this.scheduled = false;
    this.running = false;
    this.more = false;
  }

  /** An update soon (in a microtask: several changes in one task make one update). */
  schedule() {
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => {
      this.scheduled = false;
      this.run();
    });
  }

  /** One more pass once the current one ends. */
  again() {
    this.more = true;
  }

  async run() {
    if (this.running) return this.again();
    this.running = true;
    try {
      do {
        this.more = false;
        await this.update(this);
      } while (this.more);
    } catch (err) {
      this.onError(err);
    } finally {
      this.running = false;
    }
  }
}
