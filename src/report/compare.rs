//! wip
pub struct Comparison;
pub fn compare_dirs() {}
