//! The `ssdfade` binary: parse the command line, run a command, map the outcome to an exit status
//! (0 done, 1 run failed, 2 bad input or refused, 3 `soak --until-steady` ended at its limit
//! without reaching steady state, 130 interrupted).

use clap::error::ErrorKind;
use clap::Parser;
use ssdfade::cli::{Cli, Command};
use ssdfade::commands;
use ssdfade::engine::RunEnd;
use ssdfade::output::OutputFailed;

fn main() {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // No command at all: the usage and the command list (on stderr, exit 2).
        Err(e) if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => e.exit(),
        Err(e) if e.use_stderr() => {
            // One line: clap's message without the usage block and hint that follow it.
            let text = e.to_string();
            let message = text
                .split("\n\nUsage:")
                .next()
                .and_then(|m| m.split("\n\nFor more information").next())
                .unwrap_or(&text);
            let message = message
                .trim_start_matches("error: ")
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            say(format_args!("ssdfade: {message}"));
            std::process::exit(2);
        }
        Err(e) => e.exit(),
    };
    ssdfade::observe::finish::install(Box::new(ssdfade::output::finish::ChartsAndReports));
    // `soak --until-steady` or `--until-predicted` that gave up: its run is complete, but not
    // what was asked for.
    let mut gave_up = None;
    let result = match &cli.command {
        Command::Measure(args) if args.preset.is_some() => commands::measure::preset(args),
        Command::Measure(args) if !args.run.more_targets.is_empty() => {
            commands::measure::run_group(&args.run)
        }
        Command::Soak(args) if !args.run.more_targets.is_empty() => commands::soak::run_group(args),
        Command::Measure(args) => commands::measure::run(&args.run).map(|o| o.end),
        Command::Soak(args) => commands::soak::run(args).map(|o| {
            gave_up = commands::soak::gave_up(args, &o);
            o.end
        }),
        Command::Selftest(args) => commands::selftest::run(args).map(|()| RunEnd::Completed),
        Command::Sim(cmd) => commands::sim::run(cmd).map(|()| RunEnd::Completed),
        Command::Info(args) => {
            commands::info::run(&args.target, args.json).map(|_| RunEnd::Completed)
        }
        Command::Erase(args) => commands::erase::run(args),
        Command::Slog(args) => commands::slog::run(args),
        Command::Plp(cmd) => commands::plp::run(cmd),
        Command::Runs(args) => commands::runs::run(args).map(|()| RunEnd::Completed),
        Command::Plot(args) => commands::plot::run(args).map(|()| RunEnd::Completed),
        Command::Report(args) => commands::report::run(args).map(|()| RunEnd::Completed),
        Command::Compare(args) => commands::compare::run(args).map(|()| RunEnd::Completed),
        Command::Fleet(args) => commands::fleet::run(args).map(|()| RunEnd::Completed),
        Command::Experiment(cmd) => commands::experiment::run(cmd),
        Command::Resume(args) => commands::experiment::resume(args),
        Command::Sweep(args) => commands::experiment::sweep(args),
        Command::Export(args) => commands::export::run(args).map(|()| RunEnd::Completed),
        Command::Verify(args) => commands::verify::run(args),
        Command::Completions(args) => {
            commands::manual::completions(args).map(|()| RunEnd::Completed)
        }
        Command::Man(args) => commands::manual::man(args).map(|()| RunEnd::Completed),
    };
    let code = match result {
        Ok(RunEnd::Completed) if gave_up.is_some() => {
            let why = gave_up.unwrap_or_default();
            say(format_args!(
                "ssdfade: {why} (exit status 3); the run is kept"
            ));
            3
        }
        // The signal came after the work was done (while its charts were to be drawn): the
        // record says completed, truly; the exit says the process was stopped.
        Ok(RunEnd::Completed) if ssdfade::stop::requested() => {
            say(format_args!(
                "ssdfade: stopped by a signal{} after the work completed (recorded so); what was not drawn, `ssdfade report DIR` draws",
                by_whom()
            ));
            130
        }
        Ok(RunEnd::Completed) => 0,
        Ok(RunEnd::Interrupted) => {
            say(format_args!(
                "ssdfade: interrupted{}; what was recorded so far is kept",
                by_whom()
            ));
            130
        }
        Ok(RunEnd::Failed(why)) => {
            say(format_args!("ssdfade: run failed: {why}"));
            1
        }
        Err(err) => match err.downcast_ref::<OutputFailed>() {
            // The reader went away (`| head -1`): nothing to say, and nobody to say it to.
            Some(failed) if failed.is_broken_pipe() => 1,
            // The terminal hung up (an SSH session dropped): the run ended interrupted and its
            // records say so; only the summary had nowhere to go (EIO).
            Some(_) if ssdfade::run::interrupted_by().as_deref() == Some("hangup") => 130,
            // Whatever failed after a stop signal failed because of it (a chart refused, a
            // file read given up): the command was interrupted.
            _ if ssdfade::stop::requested() => {
                say(format_args!(
                    "ssdfade: interrupted{}: {}",
                    by_whom(),
                    ssdfade::error::sentence(&err)
                ));
                130
            }
            _ => {
                say(format_args!("ssdfade: {}", ssdfade::error::sentence(&err)));
                ssdfade::error::exit_code(&err)
            }
        },
    };
    std::process::exit(code);
}

/// The most characters of an error line kept from its start and from its end: a message that
/// echoes a huge argument or value is cut in the middle (with "…"), keeping what went wrong and
/// what to do.
const SAY_HEAD: usize = 1200;
const SAY_TAIL: usize = 600;

/// One line on stderr: control characters the user typed (a newline in a file name) and marks
/// that reorder text (an RTL override in a record) are shown escaped, so a message stays one
/// line as written, and a line longer than `SAY_HEAD + SAY_TAIL` characters is cut in the
/// middle; a closed stderr is ignored (nowhere left to complain).
fn say(args: std::fmt::Arguments<'_>) {
    use std::io::Write;
    let mut chars = Vec::new();
    for c in args.to_string().chars() {
        if c.is_control() || ssdfade::console::reorders(c) {
            chars.extend(c.escape_default());
        } else {
            chars.push(c);
        }
    }
    let line: String = if chars.len() > SAY_HEAD + SAY_TAIL {
        let (head, tail) = (&chars[..SAY_HEAD], &chars[chars.len() - SAY_TAIL..]);
        head.iter().chain(['…'].iter()).chain(tail).collect()
    } else {
        chars.into_iter().collect()
    };
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// " (terminate)" for the signal that stopped the process, empty when none is known.
fn by_whom() -> String {
    ssdfade::run::interrupted_by().map_or(String::new(), |s| format!(" ({s})"))
}
