// Every activity the worker hosts, built from the clients they wrap. Activities are the only code that does I/O.
export interface ActivityDependencies {}

// eslint-disable-next-line @typescript-eslint/no-unused-vars
export function createActivities(deps: ActivityDependencies) {
  return {};
}

export type Activities = ReturnType<typeof createActivities>;
