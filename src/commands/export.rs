//! `ssdfade export DIR [--format csv|jsonl] [--out FILE]`: the samples as one table, built by
//! [`crate::output::export`], printed or written to a file.

use crate::cli::ExportArgs;
use crate::output::export;

pub fn run(args: &ExportArgs) -> anyhow::Result<()> {
    let table = export::table(&args.dir)?;
    let mut bytes = Vec::new();
    export::write(&table, args.format, &mut bytes)?;
    match &args.out {
        Some(path) => {
            let kind = match args.format {
                export::Format::Csv => crate::outfile::Kind::ExportCsv,
                export::Format::Jsonl => crate::outfile::Kind::ExportJsonl,
            };
            crate::outfile::write(path, kind, &bytes)?;
            crate::note!(
                "wrote {} rows of {} to {}",
                table.rows.len(),
                args.dir.display(),
                path.display()
            );
            Ok(())
        }
        None => crate::out!("{}", String::from_utf8_lossy(&bytes)),
    }
}
