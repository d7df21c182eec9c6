//! A progression step as data: the launches an exercise's record declares
//! (`[[exercise.launch]]` in its `exercises.toml`), for the steps whose launch is one of
//! the common forms. A chapter's progression runs them with its own inputs and
//! references; a step whose launches need more than these (a host function, a launch
//! parameter of its own, a grid computed by the kernel's crate) stays code in the
//! chapter's progression. So adding an exercise whose kernel launches in a common form is
//! its record, its stub and solution and its book section: no progression code.

/// The grid a declared launch gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Grid {
    /// The grid-stride kernels' grid: the progression's `--grid`, or one sized from the
    /// device for the chapter's elements per thread.
    Stride,
    /// One thread per element: `ceil(n / block)` blocks.
    OnePerThread,
}

impl Grid {
    /// The grid's name in a record (`grid = "stride"`), or `None` for an unknown name.
    pub fn parse(name: &str) -> Option<Grid> {
        match name {
            "stride" => Some(Grid::Stride),
            "one_per_thread" => Some(Grid::OnePerThread),
            _ => None,
        }
    }

    /// Every name a record may write, for the error that lists them.
    pub const NAMES: [&'static str; 2] = ["stride", "one_per_thread"];
}

/// One launch of a step, as its exercise's record declares it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Launch {
    /// The kernel, one of the exercise's `kernels`: its signature (in the chapter's kernel
    /// table) says what input it gets.
    pub kernel: &'static str,
    /// Its grid.
    pub grid: Grid,
    /// Whether it gets dynamic shared memory for one `u32` per bin (skipped, with the
    /// reason, when the bins do not fit a block's default shared memory).
    pub shared_bins: bool,
}

/// The launches `table` (a chapter's generated `LAUNCHES`) declares for step `id`, if any.
pub fn launches_of(
    table: &[(&'static str, &'static [Launch])],
    id: &str,
) -> Option<&'static [Launch]> {
    table.iter().find(|(step, _)| *step == id).map(|(_, l)| *l)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grids_parse_by_their_names_only() {
        for name in Grid::NAMES {
            assert!(Grid::parse(name).is_some(), "{name}");
        }
        assert_eq!(Grid::parse("stride"), Some(Grid::Stride));
        assert_eq!(Grid::parse("one_per_thread"), Some(Grid::OnePerThread));
        assert_eq!(Grid::parse("Stride"), None);
        // The records' parser accepts exactly these names.
        assert_eq!(chapter_records::GRIDS, Grid::NAMES);
    }

    #[test]
    fn a_step_finds_its_own_launches() {
        const A: [Launch; 1] = [Launch {
            kernel: "k",
            grid: Grid::Stride,
            shared_bins: true,
        }];
        let table: [(&str, &[Launch]); 2] = [("1.1", &A), ("1.2", &[])];
        assert_eq!(launches_of(&table, "1.1"), Some(&A[..]));
        assert_eq!(launches_of(&table, "1.2").map(<[_]>::len), Some(0));
        assert_eq!(launches_of(&table, "1.3"), None);
    }
}
