//! Chapter 10's self-test: no code, only the tests under `tests/`, which check the
//! chapter's checks (planted mistakes fail with the right status, kind and reason). A
//! package of its own so the student's `cargo test -p ch10` does not build them;
//! `cargo test -p ch10-selftest` runs them.
