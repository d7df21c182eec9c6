//! The course's chapters, in order: the one list of them.
//!
//! The grader ([`grade::chapters`]), the runner, the course's own tests, and through
//! `cargo run -q -p chapters` (one id a line) CI and the book's generator, all read it.
//! Adding a chapter is its folder under `chapters/` (its crate, `exercises.toml` and
//! progression), its kernels and solutions files, its book pages, and one line: its
//! dependency in this crate's `Cargo.toml` (`ch10 = { path = "../../chapters/ch10" }`),
//! which Cargo needs to link it and from which `build.rs` makes [`all`].
//!
//! [`grade::chapters`]: https://docs.rs/grade

#![deny(missing_docs)]

use course::Chapter;

/// Every chapter of the course, in the order the book teaches them.
pub fn all() -> Vec<&'static Chapter> {
    include!(concat!(env!("OUT_DIR"), "/all.rs"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The list is every chapter folder (one with an `exercises.toml`), each once: a
    /// chapter added under `chapters/` but not here would be neither graded nor tested.
    #[test]
    fn the_list_is_the_chapter_folders() {
        let ids: Vec<&str> = all().iter().map(|c| c.id).collect();
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../chapters");
        let mut folders: Vec<String> = std::fs::read_dir(&root)
            .expect("chapters/")
            .filter_map(|e| e.ok())
            .filter(|e| e.path().join("exercises.toml").is_file())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        folders.sort();
        let mut sorted = ids.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), ids.len(), "a chapter listed twice: {ids:?}");
        assert_eq!(
            sorted, folders,
            "chapters::all() against the folders of chapters/"
        );
    }
}
