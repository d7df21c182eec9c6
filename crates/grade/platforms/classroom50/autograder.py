#!/usr/bin/env python3
"""Classroom 50's autograder for this course: grades the student's answers and writes
result.json as Classroom 50's runner asks (wiki "Advanced Autograding": the result.json
contract, schema classroom50/result/v1).

Classroom 50 runs this in the student's repository (GitHub Actions), with the submission
checked out as the working directory and this bundle in $CLASSROOM50_BUNDLE_DIR. It
clones the course at the commit named in course.json beside it (the course's pinned
checkout: the grade is computed from the answer regions of the student's kernels/src
alone, in the course's own files), builds the grader once, and grades with the course's
PUBLIC seed: a workflow in a student's repository is the student's to edit, so no secret
belongs here. The final grade with a private seed runs on the instructor's side
(`grade collect` and `grade --class`, crates/grade/README.md).

Exit 0 when grading ran (pass or fail is in result.json); non-zero when it could not run
(the course could not be fetched or built): Classroom 50 then reports an error.

For tests: COURSE50_COURSE_DIR names a course checkout to use instead of cloning,
COURSE50_GRADE a prebuilt grader binary, and COURSE50_GRADE_ARGS extra arguments for it
(`--exercise 9.4` to grade a part of the course).
"""

import datetime
import json
import os
import pathlib
import subprocess
import sys

HERE = pathlib.Path(os.environ.get("CLASSROOM50_BUNDLE_DIR") or pathlib.Path(__file__).parent)
WORKSPACE = pathlib.Path.cwd()
TEMP = pathlib.Path(os.environ.get("RUNNER_TEMP") or "/tmp")


def say(text):
    print(f"autograder: {text}", flush=True)


def run(args, cwd=None):
    say("$ " + " ".join(str(a) for a in args))
    subprocess.run(args, cwd=cwd, check=True)


def course():
    """The course checkout: COURSE50_COURSE_DIR, or a clone of course.json's commit."""
    if os.environ.get("COURSE50_COURSE_DIR"):
        return pathlib.Path(os.environ["COURSE50_COURSE_DIR"])
    pinned = json.loads((HERE / "course.json").read_text())
    where = TEMP / "course"
    if not (where / "Cargo.toml").is_file():
        run(["git", "init", "-q", str(where)])
        run(["git", "fetch", "-q", "--depth", "1", pinned["repository"], pinned["ref"]], cwd=where)
        run(["git", "checkout", "-q", "FETCH_HEAD"], cwd=where)
    return where


def grader(root):
    """The grader's binary: COURSE50_GRADE, or the course's, built once (release)."""
    if os.environ.get("COURSE50_GRADE"):
        return os.environ["COURSE50_GRADE"]
    run(["rustup", "target", "add", "wasm32-unknown-unknown"])
    run(["cargo", "build", "--locked", "--release", "-q", "-p", "grade"], cwd=root)
    return str(root / "target" / "release" / "grade")


def now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def result(report):
    """result.json (classroom50/result/v1) from the grader's JSON report: one test per
    exercise, its points; the fields the runner overwrites (owner, assignment_type,
    datetime) are filled from the environment so that the file is valid on its own."""
    env = os.environ.get
    tests = []
    for e in report["exercises"]:
        test = {
            "test-name": f"{e['id']} {e['title']}",
            "passed": bool(e["passed"]),
            "score": int(e["points"]["earned"]),
            "max-score": int(e["points"]["possible"]),
            "status": e["status_label"],
            "message": e["reason"],
        }
        if e.get("hint"):
            test["hint"] = e["hint"]
        tests.append(test)
    kind = env("ASSIGNMENT_TYPE") or "individual"
    return {
        "schema": "classroom50/result/v1",
        "classroom": env("CLASSROOM") or "",
        "assignment": env("ASSIGNMENT") or "",
        "assignment_type": kind if kind in ("individual", "group", "team") else "individual",
        "owner": env("OWNER") or env("USERNAME") or "",
        "submission": env("SUBMISSION_TAG") or "submit/unknown",
        "commit": env("COMMIT_URL") or "",
        "release": env("RELEASE_URL") or "",
        "review": env("REVIEW_URL") or "",
        "datetime": now(),
        "score": sum(t["score"] for t in tests),
        "max-score": sum(t["max-score"] for t in tests),
        "tests": tests,
    }


def release_body(res, feedback):
    """release-body.md: Classroom 50's score line and PASS/FAIL table, then the grader's
    feedback (what failed, why, the hint, the book section)."""
    lines = [
        f"### classroom50 autograde: {res['score']}/{res['max-score']}",
        "",
        "| Test | Result | Score |",
        "| --- | --- | --- |",
    ]
    for t in res["tests"]:
        name = t["test-name"].replace("|", "\\|")
        lines.append(f"| {name} | {'PASS' if t['passed'] else 'FAIL'} | {t['score']} / {t['max-score']} |")
    lines += ["", feedback]
    return "\n".join(lines) + "\n"


def main():
    try:
        root = course()
        grade = grader(root)
        out = TEMP / "graded"
        env = {k: v for k, v in os.environ.items() if k not in ("COURSE_GRADE_SEED", "COURSE_SEED")}
        args = [grade, "--root", str(root), "--student", str(WORKSPACE),
                "--format", "json,markdown", "--out", str(out)]
        args += os.environ.get("COURSE50_GRADE_ARGS", "").split()
        say("$ " + " ".join(args))
        subprocess.run(args, env=env, check=True)
        report = json.loads((out / "grade.json").read_text())
        feedback = (out / "feedback.md").read_text()
    except (subprocess.CalledProcessError, OSError, ValueError, KeyError) as e:
        say(f"grading could not run: {e}")
        return 1
    res = result(report)
    (WORKSPACE / "result.json").write_text(json.dumps(res, indent=2) + "\n")
    (WORKSPACE / "release-body.md").write_text(release_body(res, feedback))
    say(f"{res['score']}/{res['max-score']} points; result.json written")
    return 0


if __name__ == "__main__":
    sys.exit(main())
