//! One input of a check, named for the student who reads its failure.
//!
//! Both chapters' checks run their kernels on many seeded inputs and say which one
//! failed ("n = 100, block 64", "uniform random, n = 1000, seed 42"); the data and its
//! name travel together in a [`Case`].

/// One input of a check: its data and a description for messages.
#[derive(Clone, Debug)]
pub struct Case<T> {
    /// What the input is, for a student reading a failure.
    pub name: String,
    /// The elements.
    pub data: Vec<T>,
}

impl<T> Case<T> {
    /// A case named `name` holding `data`.
    pub fn new(name: impl Into<String>, data: Vec<T>) -> Self {
        Case {
            name: name.into(),
            data,
        }
    }

    /// Number of elements: the `n` most messages quote.
    pub fn n(&self) -> usize {
        self.data.len()
    }
}
