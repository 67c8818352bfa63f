//! The manual beside the binary: shell completion scripts and roff man pages, both generated from
//! the clap definitions the edge hands in (so they never drift from `--help`).

use std::path::{Path, PathBuf};

use clap_complete::Shell;

/// The completion script of `cmd` for `shell`.
pub fn completions(mut cmd: clap::Command, shell: Shell) -> Vec<u8> {
    let name = cmd.get_name().to_string();
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut cmd, name, &mut script);
    script
}

/// The man page of the command `path` names under `cmd` (`[]` for `cmd` itself,
/// `["experiment", "vertex2"]` for a nested one), named like `ssdfade-experiment-vertex2(1)`.
pub fn man_page(cmd: clap::Command, path: &[String]) -> anyhow::Result<Vec<u8>> {
    let mut cmd = cmd.disable_help_subcommand(true);
    cmd.build();
    let mut page = &cmd;
    for (depth, name) in path.iter().enumerate() {
        page = match page.find_subcommand(name) {
            Some(sub) => sub,
            None => {
                let known: Vec<&str> = page.get_subcommands().map(|s| s.get_name()).collect();
                let parent = ["ssdfade"]
                    .into_iter()
                    .chain(path[..depth].iter().map(String::as_str))
                    .collect::<Vec<_>>()
                    .join(" ");
                if known.is_empty() {
                    crate::bad_input!(
                        "`{parent}` has no commands: drop `{name}` from `ssdfade man`"
                    );
                }
                crate::bad_input!(
                    "`{parent}` has no command `{name}`: choose one of {}",
                    known.join(", ")
                );
            }
        };
    }
    render(&cmd, page.clone())
}

/// Writes the page of `cmd` and of every command under it into `dir`; returns the files written.
pub fn write_man_pages(cmd: clap::Command, dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut cmd = cmd.disable_help_subcommand(true);
    cmd.build();
    // The pages land as one set: a full disk half-way leaves none of this run's pages, nor the
    // folder made for them.
    crate::outfile::set_in_directory(dir, || {
        let mut written = Vec::new();
        let mut pending = vec![cmd.clone()];
        while let Some(page) = pending.pop() {
            pending.extend(page.get_subcommands().cloned());
            let path = dir.join(man(&cmd, page.clone()).get_filename());
            let roff = render(&cmd, page)?;
            crate::outfile::write(&path, crate::outfile::Kind::ManPage, &roff)?;
            written.push(path);
        }
        written.sort();
        Ok(written)
    })
}

/// The roff of `page`'s man page with its EXAMPLES section before VERSION (the command path
/// read from the bin name the built command carries: `ssdfade experiment vertex2`).
fn render(root: &clap::Command, page: clap::Command) -> anyhow::Result<Vec<u8>> {
    let bin_name = page.get_bin_name().unwrap_or(page.get_name()).to_string();
    let path: Vec<String> = bin_name
        .split_whitespace()
        .skip(1)
        .map(String::from)
        .collect();
    let mut roff = Vec::new();
    man(root, page).render(&mut roff)?;
    let examples = super::examples::of(&path);
    if examples.is_empty() {
        return Ok(roff);
    }
    let mut text = String::from_utf8(roff)?;
    let at = text.find(".SH VERSION").unwrap_or(text.len());
    text.insert_str(at, &super::examples::roff(examples));
    Ok(text.into_bytes())
}

/// The page of `page`, its footer naming the tool and version (`ssdfade 0.1.0`) of `root`.
fn man(root: &clap::Command, page: clap::Command) -> clap_mangen::Man {
    let source = format!("ssdfade {}", root.get_version().unwrap_or_default());
    clap_mangen::Man::new(page)
        .source(source.trim_end())
        .manual("ssdfade manual")
}
