//! Names of enum variants, each declared once: the snapshot's writer and reader, [`Task::state`]
//! and the persist reasons all read the same table, so a name cannot drift between them and a
//! reordered or mistyped variant is a test failure (`tags_map_back_to_themselves` below), never
//! a value silently read as another.
//!
//! [`Task::state`]: super::Task::state

/// An enum whose variants have names in a stored or public format.
pub(crate) trait Tagged: Sized {
    /// Every name, in declaration order.
    const NAMES: &'static [&'static str];
    /// The value's name.
    fn tag(&self) -> &'static str;
    /// Makes the value the variant named `NAMES[index]`, its fields at their defaults (a reader
    /// fills them next); false, leaving it as it was, past the end of `NAMES`.
    fn set_tag(&mut self, index: usize) -> bool;
}

/// Implements [`Tagged`] for an enum from one table: `"name" => pattern = value`, where
/// `pattern` matches the variant and `value` is the variant with default fields.
macro_rules! tags {
    ($ty:ty { $($name:literal => $pattern:pat = $value:expr),+ $(,)? }) => {
        impl $crate::core::agent::tags::Tagged for $ty {
            const NAMES: &'static [&'static str] = &[$($name),+];
            fn tag(&self) -> &'static str {
                match self {
                    $($pattern => $name),+
                }
            }
            fn set_tag(&mut self, index: usize) -> bool {
                // NOTE: by position, as NAMES lists them (a reader found the name there):
                // cheaper than matching the name's text again.
                let mut at = 0;
                $(
                    if index == at {
                        *self = $value;
                        return true;
                    }
                    at += 1;
                )+
                let _ = at;
                false
            }
        }
    };
}

pub(crate) use tags;

/// What a task waits for, in a word ([`Task::state`](super::Task::state)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TaskState {
    /// Not started.
    Idle,
    /// A model stream is open (or about to be).
    Stream,
    /// A person is asked.
    Answer,
    /// A tool runs.
    Tool,
    /// A hook runs.
    Hook,
    /// A checkpoint is being saved.
    Checkpoint,
    /// A retry delay runs.
    RetryDelay,
    /// The reply ended; its blocks are being presented.
    Presenting,
    /// The task ended.
    Finished,
    /// The host lists the MCP servers; the round's request goes out after.
    Listing,
}

tags!(TaskState {
    "idle" => TaskState::Idle = TaskState::Idle,
    "stream" => TaskState::Stream = TaskState::Stream,
    "answer" => TaskState::Answer = TaskState::Answer,
    "tool" => TaskState::Tool = TaskState::Tool,
    "hook" => TaskState::Hook = TaskState::Hook,
    "checkpoint" => TaskState::Checkpoint = TaskState::Checkpoint,
    "retryDelay" => TaskState::RetryDelay = TaskState::RetryDelay,
    "presenting" => TaskState::Presenting = TaskState::Presenting,
    "finished" => TaskState::Finished = TaskState::Finished,
    "listing" => TaskState::Listing = TaskState::Listing,
});

/// Why the task is stored ([`Effect::Persist`](super::Effect::Persist)'s `reason`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PersistReason {
    /// Before an ask reaches the person.
    Ask,
    /// Before a tool runs.
    Tool,
    /// Before a hook runs.
    Hook,
    /// Before a checkpoint is saved.
    Checkpoint,
    /// Before a retry delay's timer.
    RetryDelay,
    /// A message entered the history.
    Round,
    /// The task ended.
    Finished,
}

tags!(PersistReason {
    "ask" => PersistReason::Ask = PersistReason::Ask,
    "tool" => PersistReason::Tool = PersistReason::Tool,
    "hook" => PersistReason::Hook = PersistReason::Hook,
    "checkpoint" => PersistReason::Checkpoint = PersistReason::Checkpoint,
    "retryDelay" => PersistReason::RetryDelay = PersistReason::RetryDelay,
    "round" => PersistReason::Round = PersistReason::Round,
    "finished" => PersistReason::Finished = PersistReason::Finished,
});

impl TaskState {
    /// The word (`"answer"`, `"retryDelay"`, …).
    pub fn as_str(self) -> &'static str {
        self.tag()
    }

    /// Every word, in declaration order.
    pub const ALL: &'static [&'static str] = <Self as Tagged>::NAMES;
}

impl PersistReason {
    /// The word (`"ask"`, `"round"`, …).
    pub fn as_str(self) -> &'static str {
        self.tag()
    }

    /// Every word, in declaration order.
    pub const ALL: &'static [&'static str] = <Self as Tagged>::NAMES;
}

/// Checks a table, setting `value` to each variant in turn: each name is unique and maps to a
/// variant whose name is itself.
#[cfg(test)]
pub(crate) fn check<T: Tagged>(mut value: T) -> Result<(), String> {
    for (i, name) in T::NAMES.iter().enumerate() {
        if T::NAMES.iter().skip(i + 1).any(|other| other == name) {
            return Err(format!("{name} is declared twice"));
        }
        if !value.set_tag(i) {
            return Err(format!("{name} reads as nothing"));
        }
        if value.tag() != *name {
            return Err(format!("{name} reads as {}", value.tag()));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_map_back_to_themselves() {
        check(TaskState::Idle).unwrap();
        check(PersistReason::Ask).unwrap();
    }

    /// The words of the TypeScript union `export type {name} = "a" | "b" …;` in the package's
    /// declarations (src/wasm/types.rs), in order.
    fn typescript_union(name: &str) -> Vec<String> {
        let declarations = include_str!("../../wasm/types.rs");
        let start = declarations.find(&format!("export type {name} =")).map_or(declarations.len(), |at| at);
        let union = declarations.get(start..).unwrap_or_default();
        let union = union.get(..union.find(';').unwrap_or(0)).unwrap_or_default();
        union.split('"').skip(1).step_by(2).map(str::to_owned).collect()
    }

    #[test]
    fn the_typescript_unions_are_the_core_words() {
        assert_eq!(typescript_union("TaskState"), TaskState::ALL);
        assert_eq!(typescript_union("PersistReason"), PersistReason::ALL);
    }

    #[test]
    fn a_mistyped_table_is_caught() {
        #[derive(Debug)]
        enum Two {
            A,
            B,
        }
        tags!(Two { "a" => Two::A = Two::A, "b" => Two::B = Two::A });
        assert_eq!(check(Two::A), Err("b reads as a".to_owned()));
        let _ = Two::B;
    }
}
