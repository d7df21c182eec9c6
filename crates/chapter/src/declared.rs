//! Steps and checks as data.
//!
//! A progression step as data: the launches an exercise's record declares
//! (`[[exercise.launch]]` in its `exercises.toml`), for the steps whose launch is one of
//! the common forms. A chapter's progression runs them with its own inputs and
//! references; a step whose launches need more than these (a host function, a launch
//! parameter of its own, a grid computed by the kernel's crate) stays code in the
//! chapter's progression. So adding an exercise whose kernel launches in a common form is
//! its record, its stub and solution and its book section: no progression code.
//!
//! A check as data ([`Check`]): the launches an exercise's record declares for its check
//! (`[[exercise.verify]]`) and the counters each must show (`[[exercise.expect]]`). The
//! chapter's `check_declared` runs them on its inputs against its references; a check
//! that needs more (a host function, a prediction, a comparison of two kernels) stays a
//! function of the chapter's checks.
//!
//! How the data must flow ([`Follow`]): for each kernel of an exercise, who counts the
//! elements it loads, where, and what 9.9 asks of every round (`[[exercise.follow]]`, in
//! any exercise's record, whether its check is declared or a function). One generic
//! function follows every kernel's flow against its declaration ([`crate::follow`]).

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

/// The arithmetic of an expectation's value (`n + grid * bins`), re-exported for the
/// chapters' tests of their records.
pub use chapter_records::expr::Expr;

/// A declared check's grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Blocks {
    /// So many blocks whatever the input's length: the kernel must stride.
    Fixed(u32),
    /// One thread per element, and `extra` blocks more (threads with no element).
    OnePerThread {
        /// Blocks beyond `ceil(n / block)`.
        extra: u32,
    },
}

impl Blocks {
    /// The blocks of a launch over `n` elements with `block` threads per block.
    pub fn count(self, n: usize, block: u32) -> u32 {
        match self {
            Blocks::Fixed(b) => b,
            Blocks::OnePerThread { extra } => crate::launch::one_per_thread(n, block) + extra,
        }
    }
}

/// One launch of a declared check: run on each of the chapter's inputs, its result
/// compared with the reference's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Verify {
    /// The kernel, one of the exercise's.
    pub kernel: &'static str,
    /// Its grid.
    pub blocks: Blocks,
    /// Threads per block.
    pub block: u32,
    /// Bins of the histogram.
    pub bins: u32,
    /// Whether it gets dynamic shared memory for one `u32` per bin.
    pub shared_bins: bool,
}

/// How a counter compares with its expectation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Relation {
    /// Equal.
    Is,
    /// At most.
    AtMost,
    /// At least.
    AtLeast,
}

impl Relation {
    /// Does `got` stand in this relation to `want`?
    pub fn holds(self, got: i128, want: i128) -> bool {
        match self {
            Relation::Is => got == want,
            Relation::AtMost => got <= want,
            Relation::AtLeast => got >= want,
        }
    }

    /// The relation in a message (`expected at most ...`).
    pub fn words(self) -> &'static str {
        match self {
            Relation::Is => "",
            Relation::AtMost => "at most ",
            Relation::AtLeast => "at least ",
        }
    }
}

/// A counter expectation of a declared check: `counter` in `relation` to `value`, an
/// expression ([`chapter_records::expr::Expr`]) of the launch's `n`, `grid`, `block` and
/// `bins` and of its counters. A counter total alone can be matched by dummy work: a
/// check that must see where the counts come from also follows the data (`follow`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Expect {
    /// The counter, as the emulator's reports name it, or an expression of counters
    /// (`shared_load_requests + shared_store_requests`).
    pub counter: &'static str,
    /// How it compares.
    pub relation: Relation,
    /// The expression it compares with.
    pub value: &'static str,
    /// What it shows when it holds (a phrase of the pass message), if anything.
    pub means: Option<&'static str>,
    /// Why the exercise expects it: the wrong-technique message when it does not hold.
    pub why: &'static str,
    /// The kind of wrong technique its failure is (the exercise's hint for that kind
    /// answers it); `None` for wrong technique as a whole.
    pub kind: Option<&'static str>,
}

impl Expect {
    /// Tests the expectation with `value(name)` for the launch's names and counters:
    /// `Ok(None)` when it holds, `Ok(Some(message))` (its `why`, with the figures) when
    /// it does not, `Err` when a name has no value (a record the chapter cannot test).
    pub fn test(&self, value: &dyn Fn(&str) -> Option<i128>) -> Result<Option<String>, String> {
        let expr = Expr::parse(self.value)?;
        let want = expr.eval(value)?;
        let got = Expr::parse(self.counter)?.eval(value)?;
        if self.relation.holds(got, want) {
            return Ok(None);
        }
        let shown = if expr.names().is_empty() {
            want.to_string()
        } else {
            format!("{} = {want}", self.value)
        };
        Ok(Some(format!(
            "{} ({} is {got}, expected {}{shown})",
            self.why,
            self.counter,
            self.relation.words()
        )))
    }
}

/// A check as data: the launches an exercise's record declares (`[[exercise.verify]]`)
/// and the counters each must show (`[[exercise.expect]]`). The chapter's
/// `check_declared` runs it on its inputs and references (following the data of each
/// kernel its records declare a [`Follow`] for), so an exercise of a common form needs
/// no check code.
#[derive(Clone, Copy, Debug)]
pub struct Check {
    /// The launches, each run on every input.
    pub launches: &'static [Verify],
    /// The counters every launch must show (on the emulator).
    pub expect: &'static [Expect],
}

/// Who must count the elements it loads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// Each thread counts the elements it loaded (9.3, 9.5 to 9.7, 9.9, 9.11 to 9.17).
    Thread,
    /// The warp counts its lanes' elements together: one lane may add for its peers
    /// (9.8's warp aggregation), or a warp's reduction commits its lanes' counts (9.10).
    Warp,
    /// The block adds its threads' elements together: its commits (10.9's one atomic per
    /// block, after shuffles and the warps' sums in shared memory) add what they loaded.
    Block,
}

impl Unit {
    /// The unit's name in a record (`unit = "thread"`), or `None` for an unknown name.
    pub fn parse(name: &str) -> Option<Unit> {
        match name {
            "thread" => Some(Unit::Thread),
            "warp" => Some(Unit::Warp),
            "block" => Some(Unit::Block),
            _ => None,
        }
    }

    /// What a unit is called in a message.
    pub fn noun(self) -> &'static str {
        match self {
            Unit::Thread => "thread",
            Unit::Warp => "warp",
            Unit::Block => "block",
        }
    }
}

/// Where the adds that count the elements go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// Atomics on the output, one per element or run (9.3, 9.14's global kernel).
    Global,
    /// A block's private counters in shared memory (any layout: a copy of the bins, a
    /// column per lane, a slice), each committed to the output by a global atomic of
    /// what the committing thread (or its warp) read from them (9.5 to 9.9, 9.11 to 9.17).
    Shared,
    /// Registers: no memory while counting; the unit's atomics on the output commit what
    /// its threads counted (9.10, the warp's reduction).
    Registers,
}

impl Place {
    /// The place's name in a record (`into = "shared"`), or `None` for an unknown name.
    pub fn parse(name: &str) -> Option<Place> {
        match name {
            "global" => Some(Place::Global),
            "shared" => Some(Place::Shared),
            "registers" => Some(Place::Registers),
            _ => None,
        }
    }
}

/// Which of the elements a block loads it must count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Every element it loads.
    All,
    /// Those whose bins fall in the slices of the bins it commits to (9.17: a slice is as
    /// many bins as the block's shared counters, and a block reads values of every slice).
    Slices,
}

impl Scope {
    /// The scope's name in a record (`scope = "slices"`), or `None` for an unknown name.
    pub fn parse(name: &str) -> Option<Scope> {
        match name {
            "all" => Some(Scope::All),
            "slices" => Some(Scope::Slices),
            _ => None,
        }
    }
}

/// The tree a reduction in shared memory must follow, round by round (chapter 10): which
/// thread adds which word into which. A word's index is counted from the lowest word the
/// block stored to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tree {
    /// Any moves (or none): no rule on the rounds.
    Any,
    /// 10.4: thread `t` with `t % (2 * stride) == 0` adds word `t + stride` into word `t`.
    Interleaved,
    /// 10.5: thread `t` adds word `2 * stride * t + stride` into word `2 * stride * t`.
    StridedIndex,
    /// 10.6: thread `t < stride` adds word `t + stride` into word `t`.
    Sequential,
}

impl Tree {
    /// The tree's name in a record (`tree = "sequential"`), or `None` for an unknown name.
    pub fn parse(name: &str) -> Option<Tree> {
        match name {
            "any" => Some(Tree::Any),
            "interleaved" => Some(Tree::Interleaved),
            "strided_index" => Some(Tree::StridedIndex),
            "sequential" => Some(Tree::Sequential),
            _ => None,
        }
    }

    /// Where thread `t` must store the sum of words `target` and `target + stride` in the
    /// round of `stride` (`None`: the thread has no addition in that round).
    pub fn target(self, t: u64, stride: u64) -> Option<u64> {
        match self {
            Tree::Any => None,
            Tree::Interleaved => t.is_multiple_of(2 * stride).then_some(t),
            Tree::StridedIndex => Some(2 * stride * t),
            Tree::Sequential => (t < stride).then_some(t),
        }
    }

    /// The rule in words, for a message.
    pub fn rule(self) -> &'static str {
        match self {
            Tree::Any => "any tree",
            Tree::Interleaved => {
                "in the round of `stride`, thread t with t % (2 * stride) == 0 adds word t + stride into word t"
            }
            Tree::StridedIndex => {
                "in the round of `stride`, thread t adds word 2 * stride * t + stride into word 2 * stride * t"
            }
            Tree::Sequential => {
                "in the round of `stride` (halving from half the block), thread t < stride adds word t + stride into word t"
            }
        }
    }
}

/// How a kernel's data must flow, as its exercise's record declares it
/// (`[[exercise.follow]]`): who counts each loaded element, where, and, for a kernel of
/// vector loads, what every round of each thread's loop must do. [`crate::follow`] checks
/// a launch's flow against it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Follow {
    /// The kernel it declares.
    pub kernel: &'static str,
    /// Who counts what it loads.
    pub unit: Unit,
    /// Where the counting adds go.
    pub into: Place,
    /// Which loaded elements a block counts.
    pub scope: Scope,
    /// Bytes of the vector loads every whole vector of the (first) input is read with;
    /// 0: any loads.
    pub vector_bytes: u32,
    /// Vector loads a thread issues before it counts any, in every round in which it has
    /// that many left to load; 0: no such rule.
    pub in_flight: u32,
    /// Each lane counts only into shared words of one bank, its own (no two lanes of a
    /// warp in the same bank), in every round: 9.9's lane columns.
    pub lane_banks: bool,
    /// The tree of a reduction in shared memory ([`Place::Shared`] with a sum).
    pub tree: Tree,
}

/// The declaration of `kernel` in `table` (a chapter's generated `FOLLOWS`), if any.
pub fn follow_of(table: &'static [Follow], kernel: &str) -> Option<&'static Follow> {
    table.iter().find(|f| f.kernel == kernel)
}

/// [`follow_of`] for a check that follows `kernel`: a record that declares no follow for
/// it is an error of the course (the check cannot judge the technique), said as such.
pub fn follow_declared(
    table: &'static [Follow],
    kernel: &str,
) -> Result<&'static Follow, course::Outcome> {
    follow_of(table, kernel).ok_or_else(|| {
        course::Outcome::fail(
            course::Status::Error,
            format!("the check follows `{kernel}`, whose record declares no `[[exercise.follow]]`"),
        )
    })
}

impl Check {
    /// The pass message's phrases: what the expectations that hold show.
    pub fn means(&self) -> Vec<&'static str> {
        self.expect.iter().filter_map(|e| e.means).collect()
    }
}

/// Every counter of `c` by its name in the emulator's reports (`global_atomic_lanes`):
/// how a declared expectation reads counters without a list of them written by hand.
/// Made once per launch; a name that is not a counter is absent.
pub fn counters_by_name(c: &simt::Counters) -> std::collections::BTreeMap<String, i128> {
    let serde_json::Value::Object(fields) = serde_json::to_value(c).unwrap_or_default() else {
        return Default::default();
    };
    fields
        .into_iter()
        .filter_map(|(name, v)| Some((name, i128::from(v.as_u64()?))))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_expectation_holds_fails_with_its_figures_or_names_what_is_missing() {
        let e = Expect {
            counter: "global_atomic_lanes",
            relation: Relation::AtMost,
            value: "grid * bins",
            means: Some("few atomics"),
            why: "privatized",
            kind: None,
        };
        let c = simt::Counters {
            global_atomic_lanes: 700,
            ..Default::default()
        };
        let by_name = counters_by_name(&c);
        let vars = |grid: i128| {
            let by_name = &by_name;
            move |name: &str| match name {
                "grid" => Some(grid),
                "bins" => Some(256),
                _ => by_name.get(name).copied(),
            }
        };
        assert_eq!(e.test(&vars(3)), Ok(None));
        assert_eq!(
            e.test(&vars(2)),
            Ok(Some(
                "privatized (global_atomic_lanes is 700, expected at most grid * bins = 512)"
                    .into()
            ))
        );
        let typo = Expect {
            counter: "global_atomics",
            ..e
        };
        assert!(typo.test(&vars(3)).unwrap_err().contains("global_atomics"));
        let sum = Expect {
            counter: "global_atomic_lanes + shared_atomic_lanes",
            relation: Relation::Is,
            value: "0",
            ..e
        };
        assert_eq!(
            sum.test(&vars(3)),
            Ok(Some(
                "privatized (global_atomic_lanes + shared_atomic_lanes is 700, expected 0)".into()
            ))
        );
        assert_eq!(by_name.get("shared_atomic_lanes"), Some(&0));
        assert_eq!(by_name.get("global_atomic_lanes"), Some(&700));
        assert_eq!(by_name.get("nothing"), None);
    }

    #[test]
    fn a_declared_grid_counts_its_blocks() {
        assert_eq!(Blocks::Fixed(3).count(10_000, 64), 3);
        assert_eq!(Blocks::OnePerThread { extra: 0 }.count(65, 64), 2);
        assert_eq!(Blocks::OnePerThread { extra: 2 }.count(64, 64), 3);
    }

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
    fn follow_names_parse_as_the_records_accept_them() {
        for name in chapter_records::UNITS {
            assert!(Unit::parse(name).is_some(), "{name}");
        }
        for name in chapter_records::PLACES {
            assert!(Place::parse(name).is_some(), "{name}");
        }
        for name in chapter_records::SCOPES {
            assert!(Scope::parse(name).is_some(), "{name}");
        }
        for name in chapter_records::TREES {
            assert!(Tree::parse(name).is_some(), "{name}");
        }
        assert_eq!(Tree::parse("binary"), None);
        assert_eq!(Tree::Sequential.target(3, 4), Some(3));
        assert_eq!(Tree::Sequential.target(5, 4), None);
        assert_eq!(Tree::Interleaved.target(4, 2), Some(4));
        assert_eq!(Tree::Interleaved.target(2, 2), None);
        assert_eq!(Tree::StridedIndex.target(3, 2), Some(12));
        assert_eq!(Unit::parse("grid"), None);
        assert_eq!(Place::parse("local"), None);
        assert_eq!(Scope::parse("rows"), None);
        assert_eq!(Unit::Warp.noun(), "warp");
        static TABLE: [Follow; 1] = [Follow {
            kernel: "k",
            unit: Unit::Thread,
            into: Place::Shared,
            scope: Scope::All,
            vector_bytes: 0,
            in_flight: 0,
            lane_banks: false,
            tree: Tree::Any,
        }];
        assert_eq!(follow_of(&TABLE, "k").map(|f| f.into), Some(Place::Shared));
        assert!(follow_of(&TABLE, "j").is_none());
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
