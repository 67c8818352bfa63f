//! `command:'…'`: erase with a vendor tool (as the seed did with the vendor's toolbox). The
//! command runs through `sh -c`; `{target}` is replaced by the target path, shell-quoted so that
//! a name holding spaces, quotes or `;` stays one word, and `SSDFADE_TARGET` holds it too. The
//! tool's output is shown and recorded.

use std::process::{Command, Stdio};

use crate::results::ToolRun;

/// The shell command line that will run for `target`: every `{target}` becomes the path as one
/// single-quoted shell word.
pub fn expand(template: &str, target: &str) -> String {
    template.replace("{target}", &shell_quote(target))
}

/// `text` as one POSIX shell word: single-quoted, each `'` written as `'\''`.
pub fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
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
    fn target_placeholder_is_replaced_by_one_quoted_word() {
        assert_eq!(
            super::expand("toolbox --erase {target} --yes", "/dev/sdb"),
            "toolbox --erase '/dev/sdb' --yes"
        );
        assert_eq!(super::shell_quote("it's"), r"'it'\''s'");
    }

    #[test]
    fn output_and_status_are_captured() {
        let r = super::run("echo out {target}; echo err >&2; exit 3", "x").unwrap();
        assert_eq!(r.stdout, "out x\n");
        assert_eq!(r.stderr, "err\n");
        assert_eq!(r.exit_status, Some(3));
    }

    #[test]
    fn hostile_names_reach_the_tool_verbatim_and_run_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let canary = dir.path().join("INJECTED");
        let c = canary.display();
        let names = [
            format!("a b;touch {c}"),
            format!("it's\"q\"; touch {c}"),
            format!("$(touch {c})"),
            format!("`touch {c}`"),
            format!("x\ntouch {c}\n"),
            format!("'; touch {c}; '"),
            format!("\\'$(touch {c})\\"),
        ];
        for name in &names {
            let target = dir.path().join(name);
            let target = target.to_str().unwrap();
            let r = super::run(
                r#"printf '%s' {target}; printf '|%s' "$SSDFADE_TARGET""#,
                target,
            )
            .unwrap();
            assert_eq!(r.exit_status, Some(0), "{name:?}: {}", r.stderr);
            assert_eq!(r.stdout, format!("{target}|{target}"), "{name:?}");
            assert!(!canary.exists(), "{name:?} ran an injected command");
        }
    }
}
