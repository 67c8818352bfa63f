//! The `ssdfade` binary: parse the command line, run a command, map the outcome to an exit status
//! (0 done, 1 run failed, 2 bad input or refused, 130 interrupted).

use clap::Parser;
use ssdfade::cli::{Cli, Command};
use ssdfade::commands;
use ssdfade::engine::RunEnd;

fn main() {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if e.use_stderr() => {
            // One line: clap's message without the usage block that follows it.
            let text = e.to_string();
            let message = text.split("\n\nUsage:").next().unwrap_or(&text);
            let message = message
                .trim_start_matches("error: ")
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            eprintln!("ssdfade: {message}");
            std::process::exit(2);
        }
        Err(e) => e.exit(),
    };
    let result = match &cli.command {
        Command::Measure(args) if !args.more_targets.is_empty() => {
            commands::group::run(args, "measure")
        }
        Command::Soak(args) if !args.more_targets.is_empty() => commands::group::run(args, "soak"),
        Command::Measure(args) => commands::measure::run(args).map(|o| o.end),
        Command::Soak(args) => commands::soak::run(args).map(|o| o.end),
        Command::Selftest(args) => commands::selftest::run(args).map(|()| RunEnd::Completed),
        Command::Sim(cmd) => commands::sim::run(cmd).map(|()| RunEnd::Completed),
        Command::Info(args) => {
            commands::info::run(&args.target, args.json).map(|_| RunEnd::Completed)
        }
        Command::Erase(args) => commands::erase::run(args),
        Command::Runs(args) => commands::runs::run(args).map(|()| RunEnd::Completed),
    };
    let code = match result {
        Ok(RunEnd::Completed) => 0,
        Ok(RunEnd::Interrupted) => {
            eprintln!("ssdfade: interrupted; the samples taken so far are kept");
            130
        }
        Ok(RunEnd::Failed(why)) => {
            eprintln!("ssdfade: run failed: {why}");
            1
        }
        Err(err) => {
            eprintln!("ssdfade: {err:#}");
            ssdfade::error::exit_code(&err)
        }
    };
    std::process::exit(code);
}
