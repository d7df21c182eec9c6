#!/usr/bin/env bash
# PrairieLearn's external grader: grades the student's files in /grade/student from the
# pristine course and writes /grade/results/results.json (PrairieLearn's format: `score` in
# [0, 1], one test per exercise with its points and feedback).
#
# The grading image holds the course, built (see Dockerfile beside this file); the
# question's info.json names this script as its entrypoint (info.json beside this file
# shows the externalGradingOptions). The student submits ch05.rs and/or ch09.rs; only the
# answers between STUDENT-BEGIN and STUDENT-END count. A private seed comes from the
# environment variable COURSE_GRADE_SEED (set in externalGradingOptions' environment);
# it is never printed.
#
# GRADE_ROOT (default /grade), COURSE (default /course) and GRADE (default the course's
# release grader) let the course's tests run this against a fake root.
set -euo pipefail
ROOT=${GRADE_ROOT:-/grade}
COURSE=${COURSE:-/course}
GRADE=${GRADE:-$COURSE/target/release/grade}
RESULTS=$ROOT/results
mkdir -p "$RESULTS"

# The grader's last lines as the text of a JSON string: printable ASCII only (a tab, an
# escape or a byte past 127 cannot make the file invalid), no path of this machine (a word
# starting with `/` becomes <path>), backslashes and quotes escaped.
json_text() {
    printf '%s' "$1" | LC_ALL=C tr -c '[:print:]' ' ' \
        | LC_ALL=C sed -E 's#(^|[ =:(])/[^ ]*#\1<path>#g; s#\\#\\\\#g; s#"#\\"#g'
}
student=$(mktemp -d)
mkdir -p "$student/kernels/src"
# A symbolic link is copied as the link it is (`cp -P`): the grader refuses it with its reason.
find "$ROOT/student" -maxdepth 3 \( -type f -o -type l \) -name '*.rs' \
    -exec cp -P {} "$student/kernels/src/" \;
if ! "$GRADE" --root "$COURSE" --student "$student" --format prairielearn,markdown \
    --out "$RESULTS/grade" 2>"$RESULTS/grade.log"; then
    reason=$(json_text "$(tail -n 5 "$RESULTS/grade.log")")
    printf '{"gradable": false, "message": "The grader could not run: %s"}\n' \
        "$reason" >"$RESULTS/results.json"
    exit 0
fi
cp "$RESULTS/grade/prairielearn.json" "$RESULTS/results.json"
