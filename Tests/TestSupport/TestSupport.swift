// Shared helpers for end-to-end tests: a programmable loopback origin and friends.
