use crate::cli::CompareArgs;
pub fn run(_a: &CompareArgs) -> anyhow::Result<()> { anyhow::bail!("wip") }
