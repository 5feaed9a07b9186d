/**
 * `retrace/testing`: helpers for users' own tests (scripted model server, fakes that record
 * and fail loudly). Filled in by the modules that provide them.
 */
export {};
