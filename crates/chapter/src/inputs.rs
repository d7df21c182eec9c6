//! One input of a check, named for the student who reads its failure.
//!
//! Both chapters' checks run their kernels on many seeded inputs and say which one
//! failed ("n = 100, block 64", "uniform random, n = 1000, seed 42"); the data and its
//! name travel together in a [`Case`]. The progressions' generated inputs (`--input`)
//! are an [`InputKind`], shared so that both chapters take the same inputs (the fidelity
//! run compares them with Nsight Compute on uniform, one-value and text data).

use course::Rng;

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

/// How the progression's input is generated (`--input`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InputKind {
    /// Every byte (or value) equally likely.
    Uniform,
    /// Every element zero: one bin gets everything, the worst case for contention.
    Zeros,
    /// `P` percent of the elements are zero, the rest uniform: a hot bin.
    Skew(u32),
    /// The bytes of a file, repeated to the requested length.
    Text(Vec<u8>),
}

impl InputKind {
    /// A short description.
    pub fn describe(&self) -> String {
        match self {
            InputKind::Uniform => "uniform".into(),
            InputKind::Zeros => "zeros".into(),
            InputKind::Skew(p) => format!("skew:{p}"),
            InputKind::Text(t) => format!("text ({} bytes)", t.len()),
        }
    }
}

/// `n` bytes of `kind` from `seed`.
pub fn bytes(kind: &InputKind, n: usize, seed: u64) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    match kind {
        InputKind::Uniform => (0..n).map(|_| rng.below(256) as u8).collect(),
        InputKind::Zeros => vec![0; n],
        InputKind::Skew(p) => (0..n)
            .map(|_| {
                if rng.percent(*p) {
                    0
                } else {
                    rng.below(256) as u8
                }
            })
            .collect(),
        InputKind::Text(t) => cycle(t, n),
    }
}

/// `text` repeated (or cut) to `n` bytes.
pub fn cycle(text: &[u8], n: usize) -> Vec<u8> {
    if text.is_empty() {
        return vec![0; n];
    }
    text.iter().copied().cycle().take(n).collect()
}

/// Parses `--input`: `uniform`, `zeros`, `skew:P` or `text:PATH` (the file is read here,
/// so a missing one is a command-line error).
pub fn parse_input(s: &str) -> Result<InputKind, String> {
    match s {
        "uniform" => Ok(InputKind::Uniform),
        "zeros" => Ok(InputKind::Zeros),
        _ => {
            if let Some(p) = s.strip_prefix("skew:") {
                let p: u32 = p
                    .trim()
                    .parse()
                    .map_err(|_| format!("skew:P needs a percentage 0..=100, got `{p}`"))?;
                if p > 100 {
                    return Err(format!("skew:P needs a percentage 0..=100, got {p}"));
                }
                Ok(InputKind::Skew(p))
            } else if let Some(path) = s.strip_prefix("text:") {
                let bytes =
                    std::fs::read(path).map_err(|e| format!("cannot read `{path}`: {e}"))?;
                if bytes.is_empty() {
                    return Err(format!("`{path}` is empty"));
                }
                Ok(InputKind::Text(bytes))
            } else {
                Err("expected uniform, zeros, skew:P or text:PATH".into())
            }
        }
    }
}
