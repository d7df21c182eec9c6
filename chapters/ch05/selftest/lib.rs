//! Chapter 5's self-test: no code, only the tests under `tests/`, which check the
//! chapter's checks (planted mistakes fail with the right status and reason, snapshots of
//! the progression). A package of its own so the student's `cargo test -p ch05` does not
//! build them; `cargo test -p ch05-selftest` runs them.
