// The `commit_late` fault's pending commits: requests answered HTTP 500 and applied `delay_ms`
// later, as if they had arrived then. Every timer is tracked, so that a reset or close() drops the
// pending ones at once (never applied: a gateway that stops before committing) and nothing keeps
// the process alive or fires after the sandbox has stopped.

export class LateCommits {
  readonly #timers = new Set<NodeJS.Timeout>();
  #closed = false;

  /** Commits scheduled and not yet applied (GET /_sandbox/health reports it as `late_commits`). */
  get pending(): number {
    return this.#timers.size;
  }

  schedule(delayMs: number, commit: () => void): void {
    if (this.#closed) return;
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      if (this.#closed) return;
      try {
        commit();
      } catch (err) {
        // A handler bug: nobody waits for this answer, so say it rather than crash the sandbox.
        process.emitWarning(`sandbox: a late commit failed: ${(err as Error).message}`);
      }
    }, delayMs);
    this.#timers.add(timer);
  }

  /** Drop every pending commit (POST /_sandbox/reset). */
  cancelAll(): void {
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
  }

  /** Drop every pending commit and accept no more (the sandbox is stopping). */
  close(): void {
    this.#closed = true;
    this.cancelAll();
  }
}
