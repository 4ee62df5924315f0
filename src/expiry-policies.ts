// What a lifecycle does before its hold ends when no reauthorization comes first: void it, let it expire, or
// capture what remains. Plain data: the workflow, the API, the Nexus handlers and the configuration read it.

export const expiryPolicies = ['void', 'expire', 'capture'] as const;
export type ExpiryPolicy = (typeof expiryPolicies)[number];
