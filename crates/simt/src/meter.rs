//! The work budget of a check: WebAssembly instructions and warp steps, counted across
//! every launch and host call of one check, so that how long a check may run is a count
//! (the same on every machine and under any load), not a time.
//!
//! A lane's fuel ([`LaneLimits::fuel`](crate::wasm::LaneLimits::fuel)) stops a loop that
//! never reaches a device call, and a launch's step budget a loop that touches memory;
//! neither bounds the work of a kernel that burns a million instructions before each of
//! its device calls, or of a check's thirty launches that each stay under both. Such a
//! kernel could pass on an idle machine and run out of wall-clock time under load. A
//! [`Meter`] shared by every launch of a check's device ([`Config::meter`](crate::Config::meter))
//! and by its host calls ([`scope`]) counts both kinds of work; past its
//! [`WorkBudget`], the lane or launch at that point is stopped and reported as timed out,
//! at the same instruction and step on every run (the emulator's schedule is
//! deterministic, and so is the order in which lanes draw on the meter).
//!
//! A lane draws its fuel from the meter in grants of at most its share of what is left
//! (what is left divided by the threads of its block), so the lanes of a block together
//! overrun the budget by at most about what was left when they started.

use std::cell::RefCell;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// How much work a check may do in all.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct WorkBudget {
    /// WebAssembly instructions run by all lanes and host calls together.
    pub instructions: u64,
    /// Warp steps taken by all launches together.
    pub warp_steps: u64,
}

/// Which kind of work ran past its budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Work {
    /// WebAssembly instructions.
    Instructions,
    /// Warp steps.
    WarpSteps,
}

/// The work done so far against a [`WorkBudget`]; shared (an `Arc`) by the launches and
/// host calls of one check.
#[derive(Debug)]
pub struct Meter {
    budget: WorkBudget,
    instructions: AtomicU64,
    steps: AtomicU64,
}

impl Meter {
    /// A meter with nothing used yet.
    pub fn new(budget: WorkBudget) -> Arc<Meter> {
        Arc::new(Meter {
            budget,
            instructions: AtomicU64::new(0),
            steps: AtomicU64::new(0),
        })
    }

    /// The budget.
    pub fn budget(&self) -> WorkBudget {
        self.budget
    }

    /// The work counted so far.
    pub fn used(&self) -> WorkBudget {
        WorkBudget {
            instructions: self.instructions.load(Ordering::Relaxed),
            warp_steps: self.steps.load(Ordering::Relaxed),
        }
    }

    /// Counts `n` instructions; `false` once the total is past the budget.
    pub(crate) fn charge_instructions(&self, n: u64) -> bool {
        let total = self.instructions.fetch_add(n, Ordering::Relaxed) + n;
        total <= self.budget.instructions
    }

    /// Counts one warp step; `false` once the total is past the budget.
    pub(crate) fn charge_step(&self) -> bool {
        self.steps.fetch_add(1, Ordering::Relaxed) < self.budget.warp_steps
    }

    /// The fuel of one grant to a lane of a block of `threads`: its share of the
    /// instructions left, at most `fuel` (the lane's own limit), at least 1 (so that a
    /// lane past the budget stops at its next instruction).
    pub(crate) fn grant(&self, fuel: u64, threads: u32) -> u64 {
        let left = self
            .budget
            .instructions
            .saturating_sub(self.instructions.load(Ordering::Relaxed));
        (left / u64::from(threads.max(1))).clamp(1, fuel.max(1))
    }
}

thread_local! {
    static CURRENT: RefCell<Option<Arc<Meter>>> = const { RefCell::new(None) };
}

/// Runs `f` with `meter` as the meter of the host calls it makes on this thread
/// ([`current`]), then puts the previous one back.
pub fn scope<R>(meter: Option<Arc<Meter>>, f: impl FnOnce() -> R) -> R {
    let previous = CURRENT.with(|c| std::mem::replace(&mut *c.borrow_mut(), meter));
    struct Restore(Option<Arc<Meter>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let previous = self.0.take();
            CURRENT.with(|c| *c.borrow_mut() = previous);
        }
    }
    let _restore = Restore(previous);
    f()
}

/// The meter of the host calls on this thread: the innermost [`scope`]'s, if any.
pub fn current() -> Option<Arc<Meter>> {
    CURRENT.with(|c| c.borrow().clone())
}

#[cfg(test)]
mod tests {
    use super::{Meter, WorkBudget, current, scope};

    #[test]
    fn charges_count_up_to_the_budget_and_grants_share_what_is_left() {
        let m = Meter::new(WorkBudget {
            instructions: 1000,
            warp_steps: 2,
        });
        assert_eq!(m.grant(10_000, 4), 250);
        assert_eq!(m.grant(100, 4), 100, "never more than the lane's own fuel");
        assert!(m.charge_instructions(900));
        assert_eq!(m.grant(10_000, 4), 25);
        assert!(m.charge_instructions(100));
        assert_eq!(m.grant(10_000, 4), 1, "at least one instruction");
        assert!(!m.charge_instructions(1));
        assert!(m.charge_step() && m.charge_step());
        assert!(!m.charge_step());
        assert_eq!(
            m.used(),
            WorkBudget {
                instructions: 1001,
                warp_steps: 3
            }
        );
    }

    #[test]
    fn a_scope_sets_the_current_meter_and_restores_the_previous_one() {
        let outer = Meter::new(WorkBudget {
            instructions: 1,
            warp_steps: 1,
        });
        assert!(current().is_none());
        scope(Some(outer.clone()), || {
            assert!(std::sync::Arc::ptr_eq(&current().expect("set"), &outer));
            scope(None, || assert!(current().is_none()));
            assert!(current().is_some());
        });
        assert!(current().is_none());
    }
}
