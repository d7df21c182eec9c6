//! tmp
/// Every step, in order.
pub const STEPS: [&str; 6] = ["5.1", "5.2", "5.3", "5.4", "5.5", "5.6"];
