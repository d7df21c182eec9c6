//! A regrade, set beside the grade it replaces: which rows of a class's gradebook changed,
//! and by how much (`grade --class … --previous OLD/gradebook.csv` writes `changes.csv`).
//!
//! An instructor who fixes a check or changes the private seed sees who is affected before
//! publishing. Rows are matched by their `name` (the row names of a class are deterministic:
//! [`crate::class::Submission::name`]); an old gradebook of the earlier format (without
//! `folder`) is read as well.

/// Parses CSV text as RFC 4180 writes it (quoted fields, doubled quotes, line breaks in
/// quotes): its rows of fields.
pub fn parse_csv(text: &str) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    let mut row = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            (true, '"') => quoted = false,
            (true, c) => field.push(c),
            (false, '"') if field.is_empty() => quoted = true,
            (false, ',') => row.push(std::mem::take(&mut field)),
            (false, '\r') => {}
            (false, '\n') => {
                row.push(std::mem::take(&mut field));
                rows.push(std::mem::take(&mut row));
            }
            (false, c) => field.push(c),
        }
    }
    if !field.is_empty() || !row.is_empty() {
        row.push(field);
        rows.push(row);
    }
    rows
}

/// One gradebook read back: its rows by name, each the value of every column.
struct Book {
    columns: Vec<String>,
    rows: Vec<(String, Vec<String>)>,
}

impl Book {
    fn read(text: &str, what: &str) -> Result<Book, String> {
        let mut rows = parse_csv(text).into_iter();
        let columns = rows
            .next()
            .ok_or_else(|| format!("{what} is empty: not a gradebook"))?;
        for needed in ["name", "total"] {
            if !columns.iter().any(|c| c == needed) {
                return Err(format!(
                    "{what} has no `{needed}` column: not a gradebook of `grade --class`"
                ));
            }
        }
        let name = columns.iter().position(|c| c == "name").unwrap_or(0);
        let rows = rows
            .filter(|r| r.len() > name)
            .map(|r| (r[name].clone(), r))
            .collect();
        Ok(Book { columns, rows })
    }

    fn value<'a>(&'a self, row: &'a [String], column: &str) -> &'a str {
        self.columns
            .iter()
            .position(|c| c == column)
            .and_then(|i| row.get(i))
            .map_or("", String::as_str)
    }

    fn get(&self, name: &str) -> Option<&[String]> {
        self.rows
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, r)| r.as_slice())
    }
}

/// The columns that are an exercise's points (all but the gradebook's own).
fn exercise_columns(columns: &[String]) -> impl Iterator<Item = &String> {
    use crate::gradebook::{LEADING, TRAILING};
    columns
        .iter()
        .filter(|c| !LEADING.contains(&c.as_str()) && !TRAILING.contains(&c.as_str()))
}

/// What changed from the gradebook `old` to `new` (both CSV text): `changes.csv`'s text
/// (`name, folder, old_total, new_total, change, exercises, what`: one row per row whose
/// total, points of an exercise or error changed, that is new, or that is gone), and a line
/// that sums it up. `Err` when `old` is not a gradebook.
pub fn changes(old: &str, new: &str) -> Result<(String, String), String> {
    let old = Book::read(old, "--previous")?;
    let new = Book::read(new, "the new gradebook")?;
    let mut out = String::from("name,folder,old_total,new_total,change,exercises,what\n");
    let (mut changed, mut up, mut down, mut added, mut gone) = (0, 0, 0, 0, 0);
    let mut ids: Vec<&String> = exercise_columns(&new.columns).collect();
    for c in exercise_columns(&old.columns) {
        if !ids.contains(&c) {
            ids.push(c);
        }
    }
    // A row that could not be graded earned nothing.
    let number = |s: &str| match s.trim_start_matches('\'') {
        "" => Some(0),
        s => s.parse::<i64>().ok(),
    };
    let mut line = |name: &str, folder: &str, o: &str, n: &str, exercises: &str, what: &str| {
        let change = match (number(o), number(n)) {
            (Some(a), Some(b)) => format!("{:+}", b - a),
            _ => String::new(),
        };
        let cells = [name, folder, o, n, &change, exercises, what];
        let cells: Vec<String> = cells.iter().map(|c| crate::gradebook::field(c)).collect();
        out.push_str(&cells.join(","));
        out.push('\n');
    };
    for (name, row) in &new.rows {
        let folder = new.value(row, "folder");
        let now = new.value(row, "total");
        let Some(before) = old.get(name) else {
            added += 1;
            line(
                name,
                folder,
                "",
                now,
                "",
                "new: not in the previous gradebook",
            );
            continue;
        };
        let was = old.value(before, "total");
        let mut moved = Vec::new();
        for id in &ids {
            let (a, b) = (old.value(before, id), new.value(row, id));
            if a != b {
                let show = |v: &str| {
                    if v.is_empty() {
                        "-".to_string()
                    } else {
                        v.to_string()
                    }
                };
                moved.push(format!("{id}: {} -> {}", show(a), show(b)));
            }
        }
        let error_moved = old.value(before, "error") != new.value(row, "error");
        if was == now && moved.is_empty() && !error_moved {
            continue;
        }
        changed += 1;
        match (number(was), number(now)) {
            (Some(a), Some(b)) if b > a => up += 1,
            (Some(a), Some(b)) if b < a => down += 1,
            _ => {}
        }
        let what = if error_moved {
            format!("error: {}", new.value(row, "error"))
        } else {
            "changed".to_string()
        };
        line(name, folder, was, now, &moved.join("; "), &what);
    }
    for (name, row) in &old.rows {
        if new.get(name).is_none() {
            gone += 1;
            let folder = old.value(row, "folder");
            let was = old.value(row, "total");
            line(name, folder, was, "", "", "gone: not in this class");
        }
    }
    let summary = format!(
        "changes from the previous gradebook: {changed} row(s) changed ({up} up, {down} down), \
         {added} new, {gone} gone"
    );
    Ok((out, summary))
}

#[cfg(test)]
mod tests {
    use super::{changes, parse_csv};

    #[test]
    fn csv_reads_back_what_the_gradebook_writes() {
        let rows = parse_csv("a,\"b,c\",\"say \"\"hi\"\"\"\n\"line\nbreak\",'-1,\r\n");
        assert_eq!(
            rows,
            [
                vec!["a", "b,c", "say \"hi\""],
                vec!["line\nbreak", "'-1", ""]
            ]
        );
    }

    #[test]
    fn a_regrade_lists_who_changed_and_by_how_much() {
        let old = "name,9.3,9.4,total,possible,ignored,ignored_edits,error\n\
                   alice,10,10,20,20,0,,\nbob,10,0,10,20,0,,\ncarol,0,0,0,20,0,,\ngone,5,5,10,20,0,,\n";
        let new = "name,folder,kernels_at,9.3,9.4,total,possible,ignored,ignored_edits,error\n\
                   alice,alice,,10,10,20,20,0,,\nbob,bob,,0,0,0,20,0,,\ncarol,carol,,10,0,10,20,0,,\n\
                   dave,dave,,,,,,,,no submission\n";
        let (csv, summary) = changes(old, new).expect("two gradebooks");
        let rows = parse_csv(&csv);
        assert_eq!(rows[0][0], "name");
        let row = |n: &str| rows.iter().find(|r| r[0] == n).cloned();
        assert!(row("alice").is_none(), "unchanged rows are left out: {csv}");
        assert_eq!(row("bob").unwrap()[4], "-10");
        assert_eq!(row("bob").unwrap()[5], "9.3: 10 -> 0");
        assert_eq!(row("carol").unwrap()[4], "+10");
        assert!(row("dave").unwrap()[6].starts_with("new"));
        assert!(row("gone").unwrap()[6].starts_with("gone"));
        assert_eq!(
            summary,
            "changes from the previous gradebook: 2 row(s) changed (1 up, 1 down), 1 new, 1 gone"
        );
        assert!(changes("no,columns\n", new).is_err());
    }
}
