//! `command:'…'`: erase with a vendor tool (as the seed did with the vendor's toolbox). The
//! command runs through `sh -c`, `{target}` is replaced by the target path and `SSDFADE_TARGET`
//! is set; its output is shown and recorded.

use std::process::{Command, Stdio};

/// What the tool did.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct ToolRun {
    pub command: String,
    pub exit_status: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

/// The shell command line that will run for `target`.
pub fn expand(template: &str, target: &str) -> String {
    template.replace("{target}", target)
}

/// Runs the tool, passing its stdin through, and captures its output.
pub fn run(template: &str, target: &str) -> anyhow::Result<ToolRun> {
    let command = expand(template, target);
    let out = Command::new("sh")
        .arg("-c")
        .arg(&command)
        .env("SSDFADE_TARGET", target)
        .stdin(Stdio::inherit())
        .output()
        .map_err(|e| anyhow::anyhow!("cannot run `sh -c {command}`: {e}"))?;
    Ok(ToolRun {
        command,
        exit_status: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn target_placeholder_is_replaced() {
        assert_eq!(
            super::expand("toolbox --erase {target} --yes", "/dev/sdb"),
            "toolbox --erase /dev/sdb --yes"
        );
    }

    #[test]
    fn output_and_status_are_captured() {
        let r = super::run("echo out {target}; echo err >&2; exit 3", "x").unwrap();
        assert_eq!(r.stdout, "out x\n");
        assert_eq!(r.stderr, "err\n");
        assert_eq!(r.exit_status, Some(3));
    }
}
