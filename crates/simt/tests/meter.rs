//! The work meter: one budget of warp steps shared by every launch of a device, so that a
//! check whose launches each stay under the per-launch step budget is still stopped at
//! a count, the same one every run, and never by a wall clock.

mod common;

use common::reread;

use gpu_host::{Config, Device, LaunchConfig, LaunchError, Meter, WorkBudget, meter::Work};

fn device(meter: Option<std::sync::Arc<Meter>>) -> Device {
    Device::emulator_with(Config {
        meter,
        step_budget: 1_000_000,
        watchdog: None,
        ..Config::default()
    })
}

/// Launches of 100 reads until one fails; the number that completed, and the error.
fn launches_until_stopped(dev: &mut Device) -> (usize, LaunchError) {
    let out = dev.alloc::<u32>(32).expect("memory");
    for done in 0..1000 {
        if let Err(e) = dev.launch(
            &reread::KERNEL,
            LaunchConfig::linear(1, 32),
            (out.slice(), 100),
        ) {
            return (done, e);
        }
    }
    panic!("a thousand launches and no budget ran out");
}

#[test]
fn the_launches_of_a_device_share_one_budget_of_warp_steps() {
    let budget = WorkBudget {
        instructions: u64::MAX,
        warp_steps: 1000,
    };
    let meter = Meter::new(budget);
    let (done, e) = launches_until_stopped(&mut device(Some(meter.clone())));
    // Each launch takes about 200 warp steps (a load and a store per read).
    assert!((4..=5).contains(&done), "{done} launches completed");
    // The step past the budget names its first lane and where it was.
    let LaunchError::WorkBudgetExceeded {
        work: Work::WarpSteps,
        budget: 1000,
        thread: Some(_),
        ref site,
        ..
    } = e
    else {
        panic!("{e:?}");
    };
    assert!(site.contains("common/mod.rs:116:"), "{site}");
    assert!(e.to_string().contains("more than 1000 warp steps"), "{e}");
    assert!(meter.used().warp_steps > 1000);

    // The same launches on a new meter stop at the same launch: a count, not a time.
    let (again, e2) = launches_until_stopped(&mut device(Some(Meter::new(budget))));
    assert_eq!((again, &e2), (done, &e));

    // Without a meter, only the per-launch budget applies: nothing stops them.
    let mut free = device(None);
    let out = free.alloc::<u32>(32).expect("memory");
    for _ in 0..done + 3 {
        free.launch(
            &reread::KERNEL,
            LaunchConfig::linear(1, 32),
            (out.slice(), 100),
        )
        .expect("no meter, no shared budget");
    }
}

#[test]
fn a_launch_stopped_by_the_budget_names_the_line_and_the_loop_it_was_in() {
    // One launch of 100 rounds (200 warp steps), stopped at step 151: in its loop.
    let budget = WorkBudget {
        instructions: u64::MAX,
        warp_steps: 150,
    };
    let mut dev = device(Some(Meter::new(budget)));
    let out = dev.alloc::<u32>(32).expect("memory");
    let e = dev
        .launch(
            &reread::KERNEL,
            LaunchConfig::linear(1, 32),
            (out.slice(), 100),
        )
        .expect_err("past the budget");
    let LaunchError::WorkBudgetExceeded {
        thread: Some(t),
        ref site,
        in_loop: Some(ref l),
        ..
    } = e
    else {
        panic!("{e:?}");
    };
    assert_eq!(t.thread, [0, 0, 0]);
    assert!(site.contains("common/mod.rs:116:"), "{site}");
    assert_eq!((l.first_line, l.last_line), (116, 116), "{l:?}");
    assert_eq!(l.iteration, 76, "the 76th read: steps 151 and 152");
    let text = e.to_string();
    assert!(
        text.contains("in iteration 76 of the loop whose device calls are at line 116 of"),
        "{text}"
    );
}
