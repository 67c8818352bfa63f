//! The layering rules (edge → device → run → record → analysis → presenters; docs/ says more),
//! read from the source: which top-level module of `src/` names which other one. Code under
//! `#[cfg(test)]` is left out; a module's own files may name each other freely.
//!
//! A failure names the files that break the rule, so the fix starts there.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use common::{copy_tree, run_ok, ssdfade};

/// Every `.rs` file under `src/` with its text up to its first `#[cfg(test)]`.
fn sources() -> Vec<(PathBuf, String)> {
    fn walk(dir: &Path, out: &mut Vec<(PathBuf, String)>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                let code = text.split("#[cfg(test)]").next().unwrap().to_string();
                out.push((path, code));
            }
        }
    }
    let mut out = Vec::new();
    walk(&src(), &mut out);
    assert!(out.len() > 50, "only {} source files under src/", out.len());
    out
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The top-level module a file belongs to: `src/plot/fade.rs` → `plot`, `src/units.rs` → `units`.
fn module_of(path: &Path) -> String {
    let rel = path.strip_prefix(src()).unwrap();
    let first = rel
        .components()
        .next()
        .unwrap()
        .as_os_str()
        .to_string_lossy();
    first.trim_end_matches(".rs").to_string()
}

/// Lines that are comments (`//`, `//!`, `///`) name modules in prose, not in code.
fn code_lines(text: &str) -> impl Iterator<Item = &str> {
    text.lines().filter(|l| !l.trim_start().starts_with("//"))
}

/// The top-level modules a file's code names: `crate::x` paths and the heads of
/// `use crate::{x, y::z}` groups.
fn named_modules(text: &str) -> BTreeSet<String> {
    let code: Vec<&str> = code_lines(text).collect();
    let code = code.join("\n");
    let mut out = BTreeSet::new();
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    for (i, _) in code.match_indices("crate::") {
        let rest = &code[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 0;
            let end = group
                .char_indices()
                .find(|&(_, c)| {
                    match c {
                        '{' => depth += 1,
                        '}' if depth == 0 => return true,
                        '}' => depth -= 1,
                        _ => {}
                    }
                    false
                })
                .map_or(group.len(), |(j, _)| j);
            let mut depth = 0;
            let mut start = 0;
            let inner = &group[..end];
            for (j, c) in inner.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        out.insert(ident(inner[start..j].trim()));
                        start = j + 1;
                    }
                    _ => {}
                }
            }
            out.insert(ident(inner[start..].trim()));
        } else {
            out.insert(ident(rest));
        }
    }
    out.retain(|m| !m.is_empty() && m.chars().all(|c| c.is_lowercase() || c == '_'));
    out
}

/// Module → the modules it names, with the files that name each.
type Graph = BTreeMap<String, BTreeMap<String, BTreeSet<String>>>;

fn graph() -> Graph {
    let files = sources();
    let modules: BTreeSet<String> = files.iter().map(|(p, _)| module_of(p)).collect();
    let mut g = Graph::new();
    for (path, text) in &files {
        let from = module_of(path);
        g.entry(from.clone()).or_default();
        for to in named_modules(text) {
            if to != from && modules.contains(&to) {
                let rel = path.strip_prefix(src()).unwrap().display().to_string();
                g.get_mut(&from).unwrap().entry(to).or_default().insert(rel);
            }
        }
    }
    g
}

/// The strongly connected components of more than one module (Tarjan).
fn cycles(g: &Graph) -> Vec<Vec<String>> {
    struct State<'a> {
        g: &'a Graph,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a str) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on_stack.insert(v);
        let g = s.g;
        for w in g.get(v).into_iter().flat_map(|m| m.keys()) {
            let w = w.as_str();
            if !s.index.contains_key(w) {
                visit(s, w);
                let lw = s.low[w];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(lw);
            } else if s.on_stack.contains(w) {
                let iw = s.index[w];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(iw);
            }
        }
        if s.low[v] == s.index[v] {
            let mut comp = Vec::new();
            loop {
                let w = s.stack.pop().unwrap();
                s.on_stack.remove(w);
                comp.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                s.out.push(comp);
            }
        }
    }
    let mut s = State {
        g,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in g.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    s.out
}

/// The edges inside a cycle, with the files that make them, for the failure message.
fn describe(g: &Graph, comp: &[String]) -> String {
    let mut out = String::new();
    for from in comp {
        for (to, files) in &g[from] {
            if comp.contains(to) {
                let files: Vec<&str> = files.iter().map(String::as_str).collect();
                out += &format!("\n  {from} -> {to}: {}", files.join(", "));
            }
        }
    }
    out
}

#[test]
fn the_top_level_modules_form_no_import_cycle() {
    let g = graph();
    let found = cycles(&g);
    let text: String = found.iter().map(|c| describe(&g, c)).collect();
    assert!(found.is_empty(), "import cycles among {found:?}:{text}");
}

/// The layers, bottom-up, by the modules in them.
const MEASURING: [&str; 8] = [
    "device",
    "engine",
    "sim",
    "run",
    "slog",
    "experiment",
    "erase",
    "group",
];
const PRESENTING: [&str; 6] = [
    "analysis", "plot", "report", "metrics", "output", "protocol",
];
const EDGE: [&str; 2] = ["commands", "cli"];

/// Every import from one of `from` into one of `to`, with the files that make it.
fn imports_between(from: &[&str], to: &[&str]) -> Vec<String> {
    let g = graph();
    let mut found = Vec::new();
    for m in from {
        for (target, files) in g.get(*m).into_iter().flatten() {
            if to.contains(&target.as_str()) {
                found.push(format!("{m} -> {target}: {files:?}"));
            }
        }
    }
    found
}

/// Presenting renders figures; it never reaches into how they were measured.
#[test]
fn presenters_do_not_import_measuring() {
    let bad = imports_between(&PRESENTING, &MEASURING);
    assert!(
        bad.is_empty(),
        "presenting imports measuring:\n{}",
        bad.join("\n")
    );
}

/// Measuring returns its outcome; the finisher the edge installs draws and reports.
#[test]
fn measuring_does_not_import_presenting_or_the_edge() {
    let above: Vec<&str> = PRESENTING[1..].iter().chain(&EDGE).copied().collect();
    let bad = imports_between(&MEASURING, &above);
    assert!(
        bad.is_empty(),
        "measuring imports presenting:\n{}",
        bad.join("\n")
    );
}

/// The records and the figures computed from them sit below everything that measures.
#[test]
fn records_and_analysis_do_not_import_measuring_or_presenting() {
    let above: Vec<&str> = MEASURING
        .iter()
        .chain(&PRESENTING[1..])
        .chain(&EDGE)
        .copied()
        .collect();
    let bad = imports_between(&["results", "analysis", "drive"], &above);
    assert!(
        bad.is_empty(),
        "a lower layer imports a higher one:\n{}",
        bad.join("\n")
    );
}

/// The simulator is one device implementation: it knows nothing of how real devices are
/// inspected or erased.
#[test]
fn the_simulator_does_not_import_inspect_or_erase() {
    let mut bad = Vec::new();
    for (path, text) in sources() {
        if module_of(&path) == "sim" {
            let code: Vec<&str> = code_lines(&text).collect();
            let code = code.join("\n");
            for needle in ["inspect::", "crate::erase", "erase::{"] {
                if code.contains(needle) {
                    bad.push(format!("{} names {needle}", path.display()));
                }
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Only `device/` and `sim/` know whether a target is simulated.
#[test]
fn only_device_and_sim_ask_whether_a_target_is_simulated() {
    let questions = [
        "is_sim_target",
        "SimSpec::parse",
        "starts_with(\"sim:\")",
        "is_sim(",
        "crate::sim",
    ];
    let mut bad = Vec::new();
    for (path, text) in sources() {
        let module = module_of(&path);
        // `ssdfade sim` (list presets, bench the model) is the simulator's own command.
        if module == "device" || module == "sim" || path.ends_with("commands/sim.rs") {
            continue;
        }
        for (n, line) in code_lines(&text).enumerate() {
            if questions.iter().any(|q| line.contains(q)) {
                bad.push(format!("{}:{}: {}", path.display(), n + 1, line.trim()));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "asks whether a target is simulated:\n{}",
        bad.join("\n")
    );
}

/// `commands/` parses, calls the library and hands the result to output: it issues no I/O and
/// times nothing itself.
#[test]
fn commands_hold_no_domain_logic() {
    let forbidden = [
        "crate::engine",
        "crate::stats",
        "Instant::now",
        "write_at(",
        "read_at(",
        "pwrite",
    ];
    let mut bad = Vec::new();
    for (path, text) in sources() {
        if module_of(&path) != "commands" {
            continue;
        }
        for (n, line) in code_lines(&text).enumerate() {
            if forbidden.iter().any(|f| line.contains(f)) {
                bad.push(format!("{}:{}: {}", path.display(), n + 1, line.trim()));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "domain logic in commands/:\n{}",
        bad.join("\n")
    );
}

#[test]
fn the_import_reader_finds_grouped_and_nested_paths() {
    let text = "use crate::{a::B, c, d::{e, f}};\nlet x = crate::g::h();\n// crate::comment\n";
    let found: Vec<String> = named_modules(text).into_iter().collect();
    assert_eq!(found, ["a", "c", "d", "g"]);
}

/// The files that name an experiment kind (`ExperimentKind::…`) outside its record: none. A
/// decision that depends on the kind is a property of the kind's record
/// (`ExperimentKind::has_states`, `is_op_sweep`) or of its protocol (`src/protocol/`). The list
/// may shrink, never grow.
const FILES_NAMING_A_KIND: [&str; 0] = [];

/// A new experiment kind, or a new place that picks one, is not chosen by naming the kind in
/// yet another file: no file outside `results/experiment.rs` and the list above names a
/// variant of `ExperimentKind` (test code left out).
#[test]
fn naming_an_experiment_kind_spreads_to_no_new_file() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut naming: Vec<String> = sources()
        .into_iter()
        .filter(|(_, text)| code_lines(text).any(|l| l.contains("ExperimentKind::")))
        .map(|(path, _)| {
            let rel = path.strip_prefix(root).unwrap_or(&path);
            rel.display().to_string()
        })
        .filter(|p| p != "src/results/experiment.rs")
        .collect();
    naming.sort();
    let new: Vec<&String> = naming
        .iter()
        .filter(|p| !FILES_NAMING_A_KIND.contains(&p.as_str()))
        .collect();
    assert!(
        new.is_empty(),
        "these files name an experiment kind: give the kind's behaviour to the kind's own files, not to a match in {new:?}"
    );
}

/// The files that reach into two or more kinds' own modules (`wsat::`, `hir::`…): the central
/// places a new kind must be added to, besides its own files. Today: the protocols' table and
/// the CLI (each kind's figures are its own type, each kind's chart is built in its own
/// `plot/<kind>.rs`), and the SNIA PTS suite, which runs WSAT, HIR and XSR inside it by their
/// own phase plans (a kind joins it only when SNIA's specification names it). The list may
/// shrink, never grow.
const FILES_LISTING_KINDS: [&str; 3] = [
    "src/commands/experiment.rs",
    "src/experiment/pts.rs",
    "src/protocol/mod.rs",
];

/// A new kind is its own files plus an entry in each of [`FILES_LISTING_KINDS`]: no other
/// file lists the kinds (test code and comments left out).
#[test]
fn the_kinds_are_listed_in_no_new_file() {
    let kinds = [
        "vertex2",
        "wsat",
        "hir",
        "sweep",
        "op_sweep",
        "preset",
        "slc_cache",
    ];
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let names_kind = |code: &str, kind: &str| {
        code.match_indices(&format!("{kind}::")).any(|(i, _)| {
            !code[..i]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_')
        })
    };
    let mut listing: Vec<String> = sources()
        .into_iter()
        .filter(|(_, text)| {
            let code: Vec<&str> = code_lines(text).collect();
            let code = code.join("\n");
            kinds.iter().filter(|k| names_kind(&code, k)).count() >= 2
        })
        .map(|(path, _)| {
            let rel = path.strip_prefix(root).unwrap_or(&path);
            rel.display().to_string()
        })
        .collect();
    listing.sort();
    let new: Vec<&String> = listing
        .iter()
        .filter(|p| !FILES_LISTING_KINDS.contains(&p.as_str()))
        .collect();
    assert!(
        new.is_empty(),
        "these files list several experiment kinds: register the kind in src/protocol/ instead of {new:?}"
    );
}

/// The places outside its own files that a kind built on the protocols' table needs: the
/// table's entry and its CLI entry (its figures travel as `analysis::summary::KindFigures`,
/// which names no kind).
const A_KINDS_ENTRIES: [&str; 3] = [
    "src/cli.rs",
    "src/commands/experiment.rs",
    "src/protocol/mod.rs",
];

/// A new kind is at most four files of its own (`experiment/`, `analysis/`, `plot/`,
/// `protocol/<kind>.rs`) plus [`A_KINDS_ENTRIES`]: measured on slc-cache, the kind built on the
/// table, by the files whose code names its module (`slc_cache`; a `mod slc_cache;` line
/// declaring its own file left out, as are tests and comments).
#[test]
fn a_new_kind_is_four_files_plus_its_table_and_cli_entries() {
    let kind = "slc_cache";
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let names_module = |code: &str| {
        code.match_indices(kind).any(|(i, _)| {
            let word = |c: char| c.is_alphanumeric() || c == '_';
            !code[..i].chars().next_back().is_some_and(word)
                && !code[i + kind.len()..].chars().next().is_some_and(word)
        })
    };
    let (mut own, mut elsewhere) = (Vec::new(), Vec::new());
    for (path, text) in sources() {
        let code: Vec<&str> = code_lines(&text)
            .filter(|l| !l.trim().ends_with(&format!("mod {kind};")))
            .collect();
        let rel = path
            .strip_prefix(root)
            .unwrap_or(&path)
            .display()
            .to_string();
        if path.file_stem().is_some_and(|s| s == kind) {
            own.push(rel);
        } else if names_module(&code.join("\n")) {
            elsewhere.push(rel);
        }
    }
    own.sort();
    assert!(
        own.len() <= 4,
        "{kind} has {} files of its own: {own:?}",
        own.len()
    );
    let central: Vec<&String> = elsewhere
        .iter()
        .filter(|p| !A_KINDS_ENTRIES.contains(&p.as_str()))
        .collect();
    assert!(
        central.is_empty(),
        "{kind} is named outside its own files {own:?} and its entries {A_KINDS_ENTRIES:?}: give what {central:?} does for it to its protocol (src/protocol/{kind}.rs)"
    );
}

/// Every example experiment (results/examples, written by earlier versions) loads with its
/// kind's typed settings and `ssdfade report` renders it.
#[test]
fn old_experiment_directories_load_with_typed_settings_and_report() {
    use ssdfade::results::settings::Settings;
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("results/examples");
    let tmp = tempfile::tempdir().unwrap();
    let mut reported = Vec::new();
    for entry in std::fs::read_dir(&examples).unwrap().flatten() {
        let dir = entry.path();
        if !dir.join("experiment.json").is_file() {
            continue;
        }
        let record = ssdfade::results::ExperimentRecord::load(&dir).unwrap();
        assert!(
            !matches!(record.settings, Settings::Other(_)),
            "{}: settings not read as {}'s: {:?}",
            dir.display(),
            record.name,
            record.settings
        );
        let copy = tmp.path().join(entry.file_name());
        copy_tree(&dir, &copy);
        run_ok(ssdfade(tmp.path()).arg("report").arg(&copy));
        assert!(copy.join("report.md").is_file(), "{}", copy.display());
        reported.push(record.name.to_string());
    }
    reported.sort();
    reported.dedup();
    for kind in ["cdm", "hir", "sweep", "vertex2", "wsat"] {
        assert!(
            reported.iter().any(|k| k == kind),
            "no {kind} example: {reported:?}"
        );
    }
}
