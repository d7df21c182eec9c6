//! Saves under `kernels/` wake the runner, as in rustlings' watch mode: the operating
//! system's file events (inotify on Linux, FSEvents on macOS, ReadDirectoryChangesW on
//! Windows) through the `notify` crate, so a save is seen the moment it lands and an idle
//! runner costs nothing. Where no native watcher can be had (a full inotify table, a
//! network file system) `notify`'s own polling watcher takes over.

use notify::{Config, Event, EventKind, PollWatcher, RecommendedWatcher, RecursiveMode, Watcher};
use std::path::Path;
use std::time::Duration;

/// How often the fallback polls: a save reaches its verdict within this, plus the check.
const POLL: Duration = Duration::from_millis(100);

/// A watch of a folder: it calls its callback for as long as it lives.
pub enum Watch {
    /// The platform's file events.
    Native(RecommendedWatcher),
    /// `notify`'s polling, where the platform's events could not be had.
    Polling(PollWatcher),
}

/// Does `event` say a file's contents or the folder's files changed? Reads (access
/// events) and metadata-only changes do not count: opening a file in an editor, or a
/// checker reading it, must not trigger a check.
fn is_a_change(event: &Event) -> bool {
    match event.kind {
        EventKind::Create(_) | EventKind::Remove(_) => true,
        EventKind::Modify(notify::event::ModifyKind::Metadata(_)) => false,
        EventKind::Modify(_) => true,
        EventKind::Access(_) | EventKind::Any | EventKind::Other => false,
    }
}

/// Watches `dir` and everything under it; `on_change` runs (on `notify`'s thread) after
/// each save, addition or removal. Editors write a save in several events: the runner
/// folds a burst into one check. `Err` (one line) when neither watcher can watch `dir`.
pub fn watch(dir: &Path, on_change: impl Fn() + Send + Sync + 'static) -> Result<Watch, String> {
    let on_change = std::sync::Arc::new(on_change);
    let handler = |f: std::sync::Arc<dyn Fn() + Send + Sync>| {
        move |res: notify::Result<Event>| {
            if let Ok(event) = res
                && is_a_change(&event)
            {
                f();
            }
        }
    };
    let native = RecommendedWatcher::new(handler(on_change.clone()), Config::default())
        .and_then(|mut w| w.watch(dir, RecursiveMode::Recursive).map(|()| w));
    match native {
        Ok(w) => Ok(Watch::Native(w)),
        Err(native_error) => {
            let mut w = PollWatcher::new(
                handler(on_change),
                Config::default().with_poll_interval(POLL),
            )
            .map_err(|e| format!("cannot watch {}: {native_error}; {e}", dir.display()))?;
            w.watch(dir, RecursiveMode::Recursive)
                .map_err(|e| format!("cannot watch {}: {native_error}; {e}", dir.display()))?;
            Ok(Watch::Polling(w))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    /// A save under the watched folder (also in a subfolder) is reported; a read is not.
    #[test]
    fn a_save_is_seen_and_a_read_is_not() {
        let dir = std::env::temp_dir().join(format!("learn-watch-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("src")).unwrap();
        let file = dir.join("src").join("ch09.rs");
        std::fs::write(&file, "// before\n").unwrap();
        let (tx, rx) = mpsc::channel();
        let _w = watch(&dir, move || {
            let _ = tx.send(());
        })
        .unwrap();
        let _ = std::fs::read_to_string(&file).unwrap();
        assert!(
            rx.recv_timeout(Duration::from_millis(300)).is_err(),
            "a read was reported as a change"
        );
        std::fs::write(&file, "// after\n").unwrap();
        assert!(
            rx.recv_timeout(Duration::from_secs(5)).is_ok(),
            "a save was not seen"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
