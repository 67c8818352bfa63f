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

/// Wear figures of a simulated drive (the same fields as the real module's).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct SimWear {
    pub host_bytes_written: u64,
    pub nand_bytes_written: u64,
    pub write_amplification: f64,
    pub erase_count_min: u32,
    pub erase_count_mean: f64,
    pub erase_count_max: u32,
    pub mean_pe: f64,
    pub rated_pe: Option<f64>,
    pub power_on_hours: f64,
    pub throttle_debt_pe: Option<f64>,
    pub throttle_fraction: f64,
    pub mapped_bytes: u64,
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
