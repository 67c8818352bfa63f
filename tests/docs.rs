//! The manual as a reader meets it on a code-hosting page: every relative link in README.md and
//! docs/*.md leads to a file that exists and, with `#anchor`, to a heading of it (anchors made as
//! GitHub makes them); every `ssdfade …` command in their code blocks parses with the CLI's own
//! definition (`--help` level: parsed, never run); the README shows every command once.

use std::collections::{BTreeSet, HashMap};
use std::path::{Component, Path, PathBuf};

use clap::error::ErrorKind;
use clap::{CommandFactory, Parser as _};
use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};
use ssdfade::cli::Cli;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// README.md and every page of docs/, relative to the repository.
fn pages() -> Vec<PathBuf> {
    let mut pages = vec![PathBuf::from("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .map(|p| p.strip_prefix(root()).unwrap().to_path_buf())
        .collect();
    docs.sort();
    pages.extend(docs);
    pages
}

fn read(page: &Path) -> String {
    std::fs::read_to_string(root().join(page)).unwrap()
}

fn markdown(text: &str) -> Parser<'_> {
    Parser::new_ext(text, Options::ENABLE_TABLES | Options::ENABLE_FOOTNOTES)
}

/// A heading's anchor as GitHub makes it: lower case, letters, digits, `-` and `_` kept, spaces
/// become `-`, everything else dropped.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a page's headings; a repeated one gets `-1`, `-2`, … as on GitHub.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut out = BTreeSet::new();
    let mut heading: Option<String> = None;
    for event in markdown(text) {
        match event {
            Event::Start(Tag::Heading { .. }) => heading = Some(String::new()),
            Event::Text(t) | Event::Code(t) => {
                if let Some(h) = heading.as_mut() {
                    h.push_str(&t);
                }
            }
            Event::End(TagEnd::Heading(_)) => {
                let base = slug(&heading.take().unwrap());
                let n = seen.entry(base.clone()).or_insert(0);
                out.insert(if *n == 0 {
                    base.clone()
                } else {
                    format!("{base}-{n}")
                });
                *n += 1;
            }
            _ => {}
        }
    }
    out
}

/// Every link and image address of a page.
fn links(text: &str) -> Vec<String> {
    markdown(text)
        .filter_map(|event| match event {
            Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) => {
                Some(dest_url.to_string())
            }
            _ => None,
        })
        .collect()
}

/// `a/b/../c` → `a/c`, without touching the file system.
fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// What is wrong with one link on `page`, if anything.
fn broken(page: &Path, link: &str) -> Option<String> {
    if link.contains("://") || link.starts_with("mailto:") {
        return None;
    }
    let (path, anchor) = link.split_once('#').unwrap_or((link, ""));
    let target = if path.is_empty() {
        page.to_path_buf()
    } else if path.starts_with('/') {
        return Some(format!(
            "`{link}` is absolute: a code-hosting page needs a relative link"
        ));
    } else {
        normalise(&page.parent().unwrap().join(path))
    };
    let full = root().join(&target);
    if !full.exists() {
        return Some(format!("`{link}`: {} does not exist", target.display()));
    }
    if !anchor.is_empty() {
        if target.extension().is_none_or(|x| x != "md") {
            return Some(format!(
                "`{link}`: an anchor into a file that is not markdown"
            ));
        }
        if !anchors(&read(&target)).contains(anchor) {
            return Some(format!(
                "`{link}`: {} has no heading with anchor #{anchor}",
                target.display()
            ));
        }
    }
    None
}

#[test]
fn every_relative_link_resolves() {
    let mut wrong = Vec::new();
    let mut checked = 0;
    for page in pages() {
        for link in links(&read(&page)) {
            checked += 1;
            if let Some(why) = broken(&page, &link) {
                wrong.push(format!("{}: {why}", page.display()));
            }
        }
    }
    assert!(checked > 0, "no links found: is the markdown parsed?");
    assert!(wrong.is_empty(), "broken links:\n{}", wrong.join("\n"));
}

#[test]
fn a_broken_file_or_anchor_is_caught() {
    // The checker itself: a missing file, a missing heading and an absolute path are reported;
    // a heading's anchor, a repeated heading's `-1` and a file one level up are accepted.
    let readme = Path::new("README.md");
    let docs = Path::new("docs/experiments.md");
    assert!(broken(readme, "docs/no-such-page.md").is_some());
    assert!(broken(readme, "#no-such-heading").is_some());
    assert!(broken(readme, "/docs/experiments.md").is_some());
    assert!(broken(docs, "../README.md#install").is_none());
    assert_eq!(
        anchors("## `ssdfade erase T --method M` (x)\n\n## A b\n\n## A b\n"),
        BTreeSet::from([
            "ssdfade-erase-t---method-m-x".to_string(),
            "a-b".to_string(),
            "a-b-1".to_string()
        ])
    );
}

/// The lines of every shell code block of a page (fenced without a language or as sh, bash,
/// console, shell; or indented), with `\` continuations joined.
fn shell_blocks(text: &str) -> Vec<Vec<String>> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for event in markdown(text) {
        match event {
            Event::Start(Tag::CodeBlock(kind)) => {
                let shell = match kind {
                    CodeBlockKind::Indented => true,
                    CodeBlockKind::Fenced(lang) => {
                        matches!(&*lang, "" | "sh" | "bash" | "console" | "shell")
                    }
                };
                current = shell.then(String::new);
            }
            Event::Text(t) => {
                if let Some(c) = current.as_mut() {
                    c.push_str(&t);
                }
            }
            Event::End(TagEnd::CodeBlock) => {
                if let Some(c) = current.take() {
                    blocks.push(c.replace("\\\n", " ").lines().map(String::from).collect());
                }
            }
            _ => {}
        }
    }
    blocks
}

/// The arguments after `ssdfade` of every command in a block: lines `ssdfade …`,
/// `…/ssdfade …`, `cargo run --release -- …`, behind `sudo`, `nohup` or `systemd-run …`; in a
/// transcript (a block with `$ ` prompts) only the prompted lines. Shell variables set in the
/// block (`t='sim:…'`) are expanded, and a pipe, redirection or `&&` ends the command.
fn commands(block: &[String]) -> Vec<(String, Vec<String>)> {
    let transcript = block.iter().any(|l| l.starts_with("$ "));
    let mut vars: HashMap<String, String> = HashMap::new();
    let mut out = Vec::new();
    for line in block {
        let line = match (transcript, line.strip_prefix("$ ")) {
            (true, Some(rest)) => rest,
            (true, None) => continue,
            (false, _) => line.as_str(),
        };
        if is_assignment(line) {
            for assignment in line.split("; ") {
                if let Some((name, value)) = assignment.split_once('=') {
                    let words = shlex::split(value).unwrap_or_default();
                    vars.insert(name.to_string(), words.join(" "));
                }
            }
            continue;
        }
        let mut expanded = line.to_string();
        for (name, value) in &vars {
            let quoted = shlex::try_quote(value).unwrap().to_string();
            expanded = expanded
                .replace(&format!("\"${name}\""), &quoted)
                .replace(&format!("${name}"), value);
        }
        let Some(words) = shlex::split(&expanded) else {
            // Output or prose with an apostrophe, unless it starts like a command.
            if words_start_a_command(
                &line
                    .split_whitespace()
                    .map(String::from)
                    .collect::<Vec<_>>(),
            )
            .is_some()
            {
                out.push((line.to_string(), vec!["<unbalanced quotes>".into()]));
            }
            continue;
        };
        let end = words
            .iter()
            .position(|w| {
                ["|", "||", "&&", ";", "&"].contains(&w.as_str())
                    || w.starts_with('>')
                    || w.starts_with("2>")
            })
            .unwrap_or(words.len());
        let words = &words[..end];
        if let Some(start) = words_start_a_command(words) {
            out.push((line.to_string(), words[start..].to_vec()));
        }
    }
    out
}

/// Where the arguments of `ssdfade` start in a command line's words, if it runs ssdfade.
fn words_start_a_command(words: &[String]) -> Option<usize> {
    // `SSDFADE=target/release/ssdfade` sets a variable for a script: not a run of the binary.
    let is_binary = |w: &String| !w.contains('=') && (w == "ssdfade" || w.ends_with("/ssdfade"));
    let cargo_run = ["cargo", "run", "--release", "--"].map(String::from);
    let wrappers = ["sudo", "nohup", "systemd-run", "time", "exec", "setsid"];
    match words.first() {
        Some(w) if is_binary(w) => Some(1),
        Some(_) if words.starts_with(&cargo_run) => Some(cargo_run.len()),
        Some(w) if wrappers.contains(&w.as_str()) => {
            words.iter().position(is_binary).map(|i| i + 1)
        }
        _ => None,
    }
}

/// `name=value` (or several, `a=1; b=2`) that sets a shell variable.
fn is_assignment(line: &str) -> bool {
    line.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// Parses `args` as the binary would; `None` when they parse (or ask for help or the version).
fn parse_error(args: &[String]) -> Option<String> {
    let argv = std::iter::once("ssdfade".to_string()).chain(args.iter().cloned());
    match Cli::try_parse_from(argv) {
        Ok(_) => None,
        Err(e) if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => None,
        Err(e) => Some(e.to_string().lines().next().unwrap_or_default().to_string()),
    }
}

#[test]
fn every_command_in_a_code_block_parses() {
    let mut wrong = Vec::new();
    let mut checked = 0;
    for page in pages() {
        for block in shell_blocks(&read(&page)) {
            for (line, args) in commands(&block) {
                checked += 1;
                if let Some(why) = parse_error(&args) {
                    wrong.push(format!("{}: `{line}`: {why}", page.display()));
                }
            }
        }
    }
    assert!(checked > 0, "no commands found in the manual's code blocks");
    assert!(
        wrong.is_empty(),
        "commands in the manual that do not parse:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn a_command_that_does_not_parse_is_caught() {
    let block: Vec<String> = [
        "t='sim:vertex2-60g,scale=8'",
        "ssdfade measure \"$t\" --qd 4   # a comment",
        "ssdfade soak --no-such-option",
        "ssdfade man soak | man -l -",
        "echo ssdfade is not run here",
        "  group.json   each member's directory",
        "ssdfade soak 'unclosed",
    ]
    .map(String::from)
    .to_vec();
    let found = commands(&block);
    assert_eq!(found.len(), 4, "{found:?}");
    assert!(parse_error(&found[3].1).is_some());
    assert_eq!(
        found[0].1,
        ["measure", "sim:vertex2-60g,scale=8", "--qd", "4"]
    );
    assert_eq!(parse_error(&found[0].1), None);
    assert!(parse_error(&found[1].1).is_some());
    assert_eq!(found[2].1, ["man", "soak"]);
    // In a transcript only the prompted lines are commands: the output is not.
    let transcript = ["$ ssdfade runs", "ssdfade 0.1.0 output"].map(String::from);
    assert_eq!(commands(&transcript).len(), 1);
}

#[test]
fn the_readme_shows_every_command() {
    let shown: BTreeSet<String> = shell_blocks(&read(Path::new("README.md")))
        .iter()
        .flat_map(|block| commands(block))
        .filter_map(|(_, args)| args.first().cloned())
        .collect();
    let missing: Vec<String> = Cli::command()
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .filter(|name| name != "help" && !shown.contains(name))
        .collect();
    assert!(
        missing.is_empty(),
        "README.md has no example of: {}",
        missing.join(", ")
    );
}

#[test]
fn the_readme_gives_the_test_command_ci_runs() {
    let ci = std::fs::read_to_string(root().join(".ci/run")).unwrap();
    let command = ci
        .lines()
        .find_map(|l| l.trim().strip_prefix("cargo test"))
        .map(|rest| format!("cargo test{}", rest.split("||").next().unwrap().trim_end()))
        .expect(".ci/run runs cargo test");
    let readme = read(Path::new("README.md"));
    assert!(
        shell_blocks(&readme)
            .iter()
            .flatten()
            .any(|l| l.trim() == command),
        "README.md's code blocks do not give `{command}`, the test command .ci/run runs"
    );
}
