//! STAND-IN, to be replaced at merge: the simulated SSD (issue 4) is built on another branch.
//! This file only gives the `info` branch the interface it calls (`is_sim_target`, `SimErase`,
//! `erase`, `identity`, `wear`, `SimWear`); every call answers that simulated targets are not
//! built in. Nothing here simulates anything.

use crate::error::BadInput;
use crate::target::Identity;

/// True for `sim:PRESET,...` target strings.
pub fn is_sim_target(target: &str) -> bool {
    target.starts_with("sim:")
}

/// How to erase a simulated drive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SimErase {
    Secure,
    Trim { offset: u64, len: u64 },
}

/// Wear counters of a simulated drive (`info_sim` reads these two fields).
#[derive(Clone, Debug, Default)]
pub struct SimWear {
    pub host_bytes_written: u64,
    pub nand_bytes_written: u64,
}

fn not_built() -> anyhow::Error {
    anyhow::Error::new(BadInput("simulated targets are not built in".into()))
}

pub fn erase(_spec: &str, _how: SimErase) -> anyhow::Result<String> {
    Err(not_built())
}

pub fn identity(_spec: &str) -> anyhow::Result<Identity> {
    Err(not_built())
}

pub fn wear(_spec: &str) -> anyhow::Result<SimWear> {
    Err(not_built())
}
