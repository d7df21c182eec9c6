//! Chapter 10's registry and its tests, from `exercises.toml` (see `crates/records`).

fn main() {
    chapter_records::generate();
}
