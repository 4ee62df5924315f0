// The floor of history events: a workflow that starts and completes, with nothing in between.
export async function trivialWorkflow(): Promise<void> {}
