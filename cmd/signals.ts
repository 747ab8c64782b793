// How the daemon hears that it should stop: the first SIGTERM or SIGINT (or its primary's word).

/**
 * The first SIGTERM or SIGINT, or `other` (a worker's primary asking it to stop), whichever comes
 * first. The signal handlers are removed then, so a second signal during the drain ends the process at
 * once, as an operator pressing Ctrl-C twice expects.
 */
export function firstSignal<T extends string = never>(other?: Promise<T>): Promise<NodeJS.Signals | T> {
  return new Promise((resolve) => {
    const on = (signal: NodeJS.Signals | T) => {
      process.off('SIGTERM', on);
      process.off('SIGINT', on);
      resolve(signal);
    };
    process.on('SIGTERM', on);
    process.on('SIGINT', on);
    void other?.then(on);
  });
}
