//! The manual beside the binary: completion scripts and man pages generated from the clap
//! definitions, checked against those definitions (never a hard-coded command list).

mod common;

use std::process::Command;

use clap::CommandFactory;
use common::ssdfade;
use ssdfade::cli::Cli;

/// Every command path under the CLI: `soak`, `experiment vertex2`, …
fn command_paths() -> Vec<Vec<String>> {
    fn walk(cmd: &clap::Command, prefix: &[String], out: &mut Vec<Vec<String>>) {
        for sub in cmd.get_subcommands() {
            let mut path = prefix.to_vec();
            path.push(sub.get_name().to_string());
            walk(sub, &path, out);
            out.push(path);
        }
    }
    let mut out = Vec::new();
    walk(&Cli::command(), &[], &mut out);
    out
}

fn stdout_of(args: &[&str]) -> String {
    let tmp = tempfile::tempdir().unwrap();
    let out = ssdfade(tmp.path()).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "ssdfade {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn bash_completion_names_every_command_and_loads_in_bash() {
    let script = stdout_of(&["completions", "bash"]);
    let paths = command_paths();
    assert!(paths.len() > 15, "too few commands found: {paths:?}");
    for path in &paths {
        let name = path.last().unwrap();
        assert!(
            script.contains(name.as_str()),
            "the bash completion does not mention `{}`",
            path.join(" ")
        );
    }
    // Loaded by bash itself, it registers a completion function for ssdfade.
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("ssdfade.bash");
    std::fs::write(&file, &script).unwrap();
    let out = Command::new("bash")
        .arg("-c")
        .arg(format!("source {}; complete -p ssdfade", file.display()))
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && said.contains("-F _ssdfade ssdfade"),
        "bash did not load the completion: {said} {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn zsh_and_fish_completions_name_the_tool() {
    assert!(stdout_of(&["completions", "zsh"]).starts_with("#compdef ssdfade"));
    let fish = stdout_of(&["completions", "fish"]);
    assert!(fish.contains("complete -c ssdfade"), "{fish}");
}

#[test]
fn man_soak_is_roff_with_every_soak_option() {
    let page = stdout_of(&["man", "soak"]);
    assert!(
        page.lines().any(|l| l.starts_with(".TH ssdfade-soak 1")),
        "no .TH line for ssdfade-soak(1):\n{page}"
    );
    assert!(page.contains(".SH OPTIONS"), "{page}");
    let cli = Cli::command();
    let soak = cli.find_subcommand("soak").unwrap();
    let longs: Vec<&str> = soak.get_arguments().filter_map(|a| a.get_long()).collect();
    assert!(longs.contains(&"until-steady"), "{longs:?}");
    for long in longs {
        // roff escapes every dash: --until-steady is written \-\-until\-steady.
        let roff = format!("--{long}").replace('-', "\\-");
        assert!(page.contains(&roff), "ssdfade-soak(1) lacks --{long}");
    }
}

#[test]
fn man_without_a_command_is_the_tool_page_listing_the_commands() {
    let page = stdout_of(&["man"]);
    assert!(
        page.lines().any(|l| l.starts_with(".TH ssdfade 1")),
        "{page}"
    );
    for path in command_paths().iter().filter(|p| p.len() == 1) {
        assert!(
            page.contains(&path[0].replace('-', "\\-")),
            "no {}",
            path[0]
        );
    }
}

#[test]
fn man_out_dir_writes_one_page_per_command() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("man");
    stdout_of(&["man", "--out-dir", dir.to_str().unwrap()]);
    assert!(dir.join("ssdfade.1").is_file());
    for path in command_paths() {
        let file = dir.join(format!("ssdfade-{}.1", path.join("-")));
        assert!(file.is_file(), "{} was not written", file.display());
    }
}

#[test]
fn man_of_an_unknown_command_is_refused_in_one_line() {
    let tmp = tempfile::tempdir().unwrap();
    let out = ssdfade(tmp.path()).args(["man", "sok"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("no command `sok`") && err.contains("soak"),
        "{err}"
    );
}

#[test]
fn version_names_the_commit_and_the_build_date() {
    let said = stdout_of(&["--version"]);
    let inner = said
        .trim()
        .strip_prefix(&format!("ssdfade {} (", env!("CARGO_PKG_VERSION")))
        .and_then(|s| s.strip_suffix(')'))
        .unwrap_or_else(|| panic!("--version printed {said:?}"));
    let (commit, date) = inner.split_once(' ').unwrap();
    let d: Vec<&str> = date.split('-').collect();
    assert!(
        d.len() == 3 && d.iter().all(|p| p.parse::<u32>().is_ok()) && d[0].len() == 4,
        "not a YYYY-MM-DD date: {date}"
    );
    let head = Command::new("git")
        .args([
            "-C",
            env!("CARGO_MANIFEST_DIR"),
            "rev-parse",
            "--short",
            "HEAD",
        ])
        .output();
    match head {
        Ok(out) if out.status.success() => {
            assert_eq!(commit, String::from_utf8_lossy(&out.stdout).trim())
        }
        _ => assert_eq!(commit, "unknown"),
    }
}

#[test]
fn every_command_page_has_examples_that_parse() {
    use clap::Parser as _;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("man");
    stdout_of(&["man", "--out-dir", dir.to_str().unwrap()]);
    let cli = Cli::command();
    for path in command_paths() {
        let leaf = path
            .iter()
            .fold(&cli, |c, name| c.find_subcommand(name).unwrap());
        if leaf.has_subcommands() {
            continue;
        }
        let file = dir.join(format!("ssdfade-{}.1", path.join("-")));
        let page = std::fs::read_to_string(&file).unwrap();
        let section = page
            .split_once(".SH EXAMPLES")
            .unwrap_or_else(|| panic!("{} has no EXAMPLES", file.display()))
            .1;
        let command = format!("ssdfade {}", path.join(" ")).replace('-', "\\-");
        assert!(
            section.contains(&format!("\\fB{command}")),
            "{} shows no example of its own command",
            file.display()
        );
    }
    for (line, _) in ssdfade::output::examples::all() {
        let words = shlex::split(line).unwrap();
        if let Err(e) = Cli::try_parse_from(&words) {
            panic!("the example `{line}` does not parse: {e}");
        }
    }
}

#[test]
fn target_help_names_simulated_drives() {
    let page = stdout_of(&["man", "soak"]);
    assert!(
        page.contains("sim:"),
        "ssdfade-soak(1) does not name sim: targets"
    );
}
