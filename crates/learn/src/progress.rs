//! The progress file, `.course/progress.json`: what the runner keeps between runs.
//!
//! Small and readable on purpose (a student may look at it, or delete it to start over):
//! the solved exercises, the hint level of each, and the exercise last worked on. Maps
//! are ordered, so the file's bytes depend only on its content.

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The folder of the runner's state, relative to the workspace root (git-ignored).
pub const STATE_DIR: &str = ".course";

/// The environment variable naming another progress file (the course's journey test
/// runs the runner on a scratch student without touching the developer's progress).
pub const PROGRESS_ENV: &str = "COURSE_PROGRESS";

/// The progress file: `$COURSE_PROGRESS` when set, else `.course/progress.json` under the
/// workspace root.
pub fn progress_path(root: &Path) -> PathBuf {
    match std::env::var_os(PROGRESS_ENV) {
        Some(p) => PathBuf::from(p),
        None => root.join(STATE_DIR).join("progress.json"),
    }
}

/// What the runner remembers.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Progress {
    /// The format's version, 1.
    #[serde(default = "one")]
    pub version: u32,
    /// The exercise last in front of the student.
    #[serde(default)]
    pub current: Option<String>,
    /// Exercises whose last check passed.
    #[serde(default)]
    pub solved: BTreeSet<String>,
    /// Hints shown per exercise.
    #[serde(default)]
    pub hints: BTreeMap<String, usize>,
}

fn one() -> u32 {
    1
}

impl Progress {
    /// Did `id`'s last check pass?
    pub fn is_solved(&self, id: &str) -> bool {
        self.solved.contains(id)
    }

    /// Records `id`'s last check.
    pub fn set_solved(&mut self, id: &str, solved: bool) {
        if solved {
            self.solved.insert(id.to_string());
        } else {
            self.solved.remove(id);
        }
    }

    /// Hints shown for `id`.
    pub fn hint_level(&self, id: &str) -> usize {
        self.hints.get(id).copied().unwrap_or(0)
    }

    /// Shows `level` hints for `id`.
    pub fn set_hint_level(&mut self, id: &str, level: usize) {
        self.hints.insert(id.to_string(), level);
    }

    /// Reads the progress file; a missing file is a fresh start. An unreadable one is an
    /// error naming the file, so the student can delete it.
    pub fn load(path: &Path) -> Result<Progress, String> {
        match std::fs::read_to_string(path) {
            Ok(text) => serde_json::from_str(&text).map_err(|e| {
                format!(
                    "{} is not a progress file ({e}); delete it to start over",
                    path.display()
                )
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Progress {
                version: 1,
                ..Progress::default()
            }),
            Err(e) => Err(format!("cannot read {}: {e}", path.display())),
        }
    }

    /// Writes the progress file (creating `.course/`).
    pub fn save(&self, path: &Path) -> Result<(), String> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        }
        let text = serde_json::to_string_pretty(self).expect("invariant: plain data serializes");
        std::fs::write(path, text + "\n")
            .map_err(|e| format!("cannot write {}: {e}", path.display()))
    }
}
