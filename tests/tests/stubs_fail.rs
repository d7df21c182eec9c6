//! Every untouched stub fails with its own hint: as not implemented, naming its exercise,
//! with the hint for that failure and its book section. The stubs are the pristine copies
//! (what a fresh clone ships), whatever `kernels/` holds in a half-solved course, and run
//! on the emulator: on a GPU a `todo!()` is a trap that says nothing, and this test is
//! about the message each stub fails with.

use course::KernelSource;
use gpu_host::Device;

#[test]
fn every_stub_fails_with_its_own_hint() {
    course_tests::use_pristine_stubs();
    for e in course_tests::chapters()
        .iter()
        .flat_map(|c| c.exercises.iter())
    {
        let out = e.run(&mut Device::emulator(), KernelSource::Student);
        assert_eq!(
            out.status,
            course::Status::NotImplemented,
            "the stub of {} should fail as not implemented, got: {}",
            e.id,
            e.failure_message(&out)
        );
        assert!(
            out.reason.contains(e.id),
            "the stub of {} fails without naming it: {}",
            e.id,
            out.reason
        );
        let msg = e.failure_message(&out);
        assert!(
            !e.hints.is_empty() && msg.contains(&e.hint_for(&out)),
            "the failure of {} does not show the hint for its failure",
            e.id
        );
        assert!(
            msg.contains(e.book),
            "the failure of {} does not point to its book section",
            e.id
        );
    }
}
