//! `#[kernel]` rejects what a PTX entry cannot be, with a message that says why.

#[test]
fn kernel_attribute_errors() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
