//! Which command wrote a record: the `command` of run.json, erase.json and group.json, written
//! as the words older versions wrote (`measure`, `soak`, `experiment vertex2 fresh`…).

use std::borrow::Cow;
use std::fmt;

use schemars::{json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Serialize};

/// The command behind a record.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub enum Command {
    Measure,
    Soak,
    Slog,
    Erase,
    /// A run of an experiment's phase (`experiment vertex2 fresh`), or a group of experiments
    /// (`experiment vertex2`): the words after `experiment`.
    Experiment(String),
    /// A name given by a library caller.
    Other(String),
}

impl From<&str> for Command {
    fn from(words: &str) -> Command {
        match words {
            "measure" => Command::Measure,
            "soak" => Command::Soak,
            "slog" => Command::Slog,
            "erase" => Command::Erase,
            _ => match words.strip_prefix("experiment ") {
                Some(rest) => Command::Experiment(rest.to_string()),
                None => Command::Other(words.to_string()),
            },
        }
    }
}

impl From<String> for Command {
    fn from(words: String) -> Command {
        Command::from(words.as_str())
    }
}

impl From<Command> for String {
    fn from(command: Command) -> String {
        command.to_string()
    }
}

impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Command::Measure => f.write_str("measure"),
            Command::Soak => f.write_str("soak"),
            Command::Slog => f.write_str("slog"),
            Command::Erase => f.write_str("erase"),
            Command::Experiment(rest) => write!(f, "experiment {rest}"),
            Command::Other(words) => f.write_str(words),
        }
    }
}

impl JsonSchema for Command {
    fn schema_name() -> Cow<'static, str> {
        "Command".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "string",
            "description": "`measure`, `soak`, `slog`, `erase`, `experiment KIND [PHASE]`, or a library caller's name."
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_read_back_as_the_words_they_were_written_as() {
        for words in [
            "measure",
            "soak",
            "slog",
            "erase",
            "experiment vertex2 fresh",
            "library-test",
        ] {
            let command = Command::from(words);
            assert_eq!(serde_json::to_value(&command).unwrap(), words);
            assert_eq!(
                serde_json::from_value::<Command>(words.into()).unwrap(),
                command
            );
        }
        assert_eq!(
            Command::from("experiment wsat"),
            Command::Experiment("wsat".into())
        );
        assert_eq!(Command::from("soak"), Command::Soak);
    }
}
