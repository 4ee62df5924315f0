/** The route every HTTP service of the stack answers once it is ready: the API, characters and the sandbox. */
export const READINESS_PATH = '/health';
