/**
 * The worker process's V8 heap limits, set when it starts (NODE_OPTIONS or node's command line): 8 MB young
 * semi-spaces and a 384 MB old generation, the heap the SDK sizes about 100 cached workflows for
 * (WORKER_MAX_CACHED_WORKFLOWS; a larger cache wants about 1.7 MB more per workflow). Without them V8 lets
 * each isolate grow far past what it holds before it collects (docs/performance.md).
 */
export const WORKER_V8_FLAGS = ['--max-semi-space-size=8', '--max-old-space-size=384'];
