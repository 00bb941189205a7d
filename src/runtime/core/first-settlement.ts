/**
 * A promise settled by the first of several competing outcomes (a result, a timeout, an abort,
 * output over the cap): later outcomes are ignored.
 */
export class FirstSettlement<T> {
  /** Resolves with the first outcome offered. */
  readonly promise: Promise<T>;
  #resolve!: (value: T) => void;
  #settled = false;

  constructor() {
    this.promise = new Promise<T>((resolve) => {
      this.#resolve = resolve;
    });
  }

  /** Whether an outcome has been offered. */
  get settled(): boolean {
    return this.#settled;
  }

  /** Offers an outcome; only the first one counts. */
  offer(value: T): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#resolve(value);
  }
}
