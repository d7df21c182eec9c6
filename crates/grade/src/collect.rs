//! Collecting a class's submissions for the final grade: every student's repository,
//! cloned at its deadline commit into a class folder that `grade --class` then grades on
//! the instructor's side, with the private seed (`grade collect`).
//!
//! Grading that runs in a student's own repository runs a workflow the student can edit,
//! so a secret given to it can be printed; the final grade therefore runs where students
//! cannot reach: the instructor's machine or the instructor's own repository's workflow.
//! This module takes a roster (CSV: `name`, `repository` and optionally `commit`; a
//! Classroom 50 or GitHub export with those columns) and clones each repository with git,
//! at the commit named, or at the last commit before `--deadline`, or at its head.
//! A commit's date is the committer's word (`GIT_COMMITTER_DATE`): `--deadline` run after
//! the deadline takes a late commit dated before it, so a deadline that must hold is
//! collected at the deadline (the heads) or from commits a platform recorded (the roster's
//! `commit`).

use std::path::{Path, PathBuf};
use std::process::Command;

/// One student of the roster.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The folder name the submission is collected into (the roster's `name`, made safe).
    pub name: String,
    /// The repository: a URL git can clone, or a local path.
    pub repository: String,
    /// The commit to take, when the roster names one.
    pub commit: Option<String>,
}

/// Reads a roster: CSV with a header naming the columns `name` (or `student`, `login`,
/// `github_username`) and `repository` (or `repo`, `url`, `repository_url`), optionally
/// `commit` (or `sha`). `Err` says which column is missing.
pub fn roster(text: &str) -> Result<Vec<Entry>, String> {
    let rows = crate::regrade::parse_csv(text);
    let mut rows = rows.into_iter();
    let header: Vec<String> = rows
        .next()
        .ok_or("the roster is empty")?
        .into_iter()
        .map(|h| h.trim().to_lowercase())
        .collect();
    let find = |names: &[&str]| header.iter().position(|h| names.contains(&h.as_str()));
    let name = find(&["name", "student", "login", "github_username", "username"])
        .ok_or("the roster has no `name` column (or student, login, github_username)")?;
    let repo = find(&["repository", "repo", "url", "repository_url", "clone_url"])
        .ok_or("the roster has no `repository` column (or repo, url, repository_url)")?;
    let commit = find(&["commit", "sha", "commit_sha"]);
    Ok(rows
        .filter(|r| r.iter().any(|c| !c.trim().is_empty()))
        .map(|r| {
            let cell = |i: usize| r.get(i).map(|c| c.trim().to_string()).unwrap_or_default();
            Entry {
                name: crate::class::safe_name(&cell(name)),
                repository: cell(repo),
                commit: commit.map(cell).filter(|c| !c.is_empty()),
            }
        })
        .collect())
}

/// What collecting one entry gave: the commit taken, or why none.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Collected {
    /// The entry.
    pub entry: Entry,
    /// The full commit id checked out, or why the repository could not be collected.
    pub commit: Result<String, String>,
}

/// A `git` command that never asks for a password (a private repository without
/// credentials fails at once instead of waiting on a prompt) and runs no hooks.
fn git(dir: Option<&Path>) -> Command {
    let mut cmd = Command::new("git");
    if let Some(d) = dir {
        cmd.current_dir(d);
    }
    cmd.env("GIT_TERMINAL_PROMPT", "0").args([
        "-c",
        "core.hooksPath=/dev/null",
        "-c",
        "advice.detachedHead=false",
    ]);
    cmd
}

fn run(mut cmd: Command, what: &str) -> Result<String, String> {
    let out = cmd
        .output()
        .map_err(|e| format!("{what}: cannot run git: {e}"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    } else {
        let err = String::from_utf8_lossy(&out.stderr);
        Err(format!(
            "{what}: {}",
            err.lines().last().unwrap_or("git failed").trim()
        ))
    }
}

/// Clones `entry` into `into/<name>` (replacing what is there) and checks out its commit:
/// the roster's, else the last one before `deadline` (any date git reads), else the head.
pub fn collect_one(entry: &Entry, into: &Path, deadline: Option<&str>) -> Collected {
    let dir = into.join(&entry.name);
    let commit = (|| {
        if entry.repository.is_empty() {
            return Err("no repository in the roster".to_string());
        }
        let _ = std::fs::remove_dir_all(&dir);
        let mut clone = git(None);
        clone
            .args(["clone", "--quiet", "--no-checkout", "--"])
            .arg(&entry.repository)
            .arg(&dir);
        run(clone, "git clone")?;
        let commit = match (&entry.commit, deadline) {
            (Some(c), _) => c.clone(),
            (None, Some(d)) => {
                let mut before = git(Some(&dir));
                before.args(["rev-list", "-1", &format!("--before={d}"), "HEAD"]);
                let c = run(before, "the commit before the deadline")?;
                if c.is_empty() {
                    return Err(format!("no commit before the deadline ({d})"));
                }
                c
            }
            (None, None) => "HEAD".to_string(),
        };
        let mut checkout = git(Some(&dir));
        checkout.args(["checkout", "--quiet", "--detach", &commit, "--"]);
        run(checkout, "git checkout")?;
        let mut head = git(Some(&dir));
        head.args(["rev-parse", "HEAD"]);
        run(head, "git rev-parse")
    })();
    Collected {
        entry: entry.clone(),
        commit,
    }
}

/// Collects every entry of `roster` into `into` (see [`collect_one`]) and writes what was
/// taken to `into/.collected.csv` (`name, repository, commit, error`: hidden, so that
/// `grade --class into` does not take it for a submission). Returns the results in the
/// roster's order.
pub fn collect(
    roster: &[Entry],
    into: &Path,
    deadline: Option<&str>,
) -> Result<Vec<Collected>, String> {
    std::fs::create_dir_all(into).map_err(|e| format!("cannot create {}: {e}", into.display()))?;
    let mut seen = std::collections::BTreeSet::new();
    if let Some(dup) = roster.iter().find(|e| !seen.insert(e.name.clone())) {
        return Err(format!(
            "the roster names `{}` twice: each student needs a name of their own",
            dup.name
        ));
    }
    let mut log = String::from("name,repository,commit,error\n");
    let mut done = Vec::new();
    for (k, entry) in roster.iter().enumerate() {
        let c = collect_one(entry, into, deadline);
        eprintln!(
            "grade: collected {} of {}: {}: {}",
            k + 1,
            roster.len(),
            entry.name,
            match &c.commit {
                Ok(id) => id.chars().take(12).collect::<String>(),
                Err(e) => format!("not collected ({e})"),
            }
        );
        let cells = [
            entry.name.as_str(),
            entry.repository.as_str(),
            c.commit.as_deref().unwrap_or(""),
            c.commit.as_ref().err().map_or("", String::as_str),
        ];
        let cells: Vec<String> = cells.iter().map(|t| crate::gradebook::field(t)).collect();
        log.push_str(&cells.join(","));
        log.push('\n');
        done.push(c);
    }
    let file: PathBuf = into.join(".collected.csv");
    std::fs::write(&file, log).map_err(|e| format!("cannot write {}: {e}", file.display()))?;
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_roster_names_its_columns_in_several_ways() {
        let r = roster("Student,Repo URL,sha\nalice,https://x/a.git,abc\n").unwrap_err();
        assert!(r.contains("repository"), "{r}");
        let r =
            roster("login,repository_url,commit\nj doe,https://x/j.git,\nbob,/tmp/b,1234\n,,\n")
                .unwrap();
        assert_eq!(r.len(), 2);
        assert_eq!(r[0].name, "j_doe");
        assert_eq!(r[0].commit, None);
        assert_eq!(r[1].commit.as_deref(), Some("1234"));
    }

    /// A repository whose history has a commit before the deadline and one after it.
    #[test]
    fn a_repository_is_taken_at_its_deadline_commit() {
        if Command::new("git").arg("--version").output().is_err() {
            return;
        }
        let base = std::env::temp_dir().join(format!("grade-collect-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        let repo = base.join("alice-repo");
        std::fs::create_dir_all(&repo).unwrap();
        let commit = |date: &str, text: &str| {
            std::fs::write(repo.join("answer.txt"), text).unwrap();
            for args in [
                vec!["add", "answer.txt"],
                vec![
                    "-c",
                    "user.name=a",
                    "-c",
                    "user.email=a@b",
                    "commit",
                    "-qm",
                    text,
                ],
            ] {
                let ok = git(Some(&repo))
                    .args(args)
                    .env("GIT_AUTHOR_DATE", date)
                    .env("GIT_COMMITTER_DATE", date)
                    .status()
                    .unwrap();
                assert!(ok.success());
            }
        };
        run(
            {
                let mut c = git(Some(&repo));
                c.args(["init", "-q"]);
                c
            },
            "init",
        )
        .unwrap();
        commit("2026-12-01T10:00:00Z", "on time");
        commit("2026-12-03T10:00:00Z", "late");
        let into = base.join("class");
        let entries = vec![
            Entry {
                name: "alice".into(),
                repository: repo.display().to_string(),
                commit: None,
            },
            Entry {
                name: "nobody".into(),
                repository: base.join("missing").display().to_string(),
                commit: None,
            },
        ];
        let got = collect(&entries, &into, Some("2026-12-02T00:00:00Z")).unwrap();
        assert!(got[0].commit.is_ok(), "{got:?}");
        let text = std::fs::read_to_string(into.join("alice/answer.txt")).unwrap();
        assert_eq!(text, "on time");
        assert!(got[1].commit.is_err());
        let log = std::fs::read_to_string(into.join(".collected.csv")).unwrap();
        assert!(log.contains("nobody,") && log.lines().count() == 3, "{log}");
        let _ = std::fs::remove_dir_all(&base);
    }
}
