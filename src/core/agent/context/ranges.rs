//! Truncation's ranges (CONTEXT §3.1, §3.2): which messages a truncation removes from what
//! requests send. The history itself keeps everything (the user still sees it all).

use serde::{Deserialize, Serialize};

use crate::core::conversation::{Message, Role};

/// How much of the conversation after the kept first exchange a truncation removes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keep {
    /// Everything after the range (a summary replaces it).
    None,
    /// Everything but the last two messages.
    LastTwo,
    /// Half.
    Half,
    /// Three quarters.
    Quarter,
}

/// Messages removed from what requests send, `[start, end]` inclusive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeletedRange {
    /// First removed index (2: the task and the first reply are kept).
    pub start: usize,
    /// Last removed index (an assistant message).
    pub end: usize,
}

/// The next deleted range after `current`: of the `L − s` messages after it (`s` its end + 1,
/// or 2), `keep` says how many go (the reference's counts: `none` all, `lastTwo` all but two,
/// `half` ⌊(L − s)/4⌋·2, `quarter` ⌊3(L − s)/8⌋·2), and the end steps back until it is an
/// assistant message, so that whole turns go. Ranges are cumulative: the result starts at 2.
/// `current` again when nothing more can be removed.
pub fn next_truncation(history: &[Message], current: Option<DeletedRange>, keep: Keep) -> Option<DeletedRange> {
    next_truncation_after(history, 0, current, keep)
}

/// [`next_truncation`] in a view that starts at history message `head` (a compaction's
/// carrier, CONTEXT §6.3): the carrier's turn (`head` and `head + 1`) is kept, and the range
/// starts at `head + 2`. A `current` range of another head is not continued.
pub fn next_truncation_after(
    history: &[Message],
    head: usize,
    current: Option<DeletedRange>,
    keep: Keep,
) -> Option<DeletedRange> {
    let first = head + 2;
    let current = current.filter(|range| range.start == first);
    let start = current.map_or(first, |range| range.end + 1);
    let rest = history.len().saturating_sub(start);
    let removed = match keep {
        Keep::None => rest,
        Keep::LastTwo => rest.saturating_sub(2),
        Keep::Half => rest / 4 * 2,
        Keep::Quarter => rest * 3 / 8 * 2,
    };
    if removed == 0 {
        return current;
    }
    let mut end = start + removed - 1;
    while history.get(end).map(|m| m.role) != Some(Role::Assistant) {
        if end <= start {
            return current;
        }
        end -= 1;
    }
    Some(DeletedRange { start: first, end })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::conversation::Content;

    fn text(role: Role, text: &str) -> Message {
        Message { role, content: Content::Text(text.into()) }
    }

    /// `len` messages alternating user / assistant from a user message.
    fn conversation(len: usize) -> Vec<Message> {
        (0..len).map(|i| text(if i % 2 == 0 { Role::User } else { Role::Assistant }, "m")).collect()
    }

    /// The reference's range (§3.1), computed independently: `end` steps back once.
    fn reference(len: usize, previous: Option<(usize, usize)>, keep: Keep) -> Option<(usize, usize)> {
        let s = previous.map_or(2, |(_, end)| end + 1);
        let rest = len.saturating_sub(s);
        let removed = match keep {
            Keep::None => rest,
            Keep::LastTwo => rest.saturating_sub(2),
            Keep::Half => (rest / 4) * 2,
            Keep::Quarter => (3 * rest / 8) * 2,
        };
        if removed == 0 {
            return previous;
        }
        let mut end = s + removed - 1;
        if end % 2 == 0 {
            if end <= s {
                return previous;
            }
            end -= 1;
        }
        Some((2, end))
    }

    #[test]
    fn ranges_match_the_reference_for_every_length_keep_and_previous_range() {
        for len in [3, 4, 5, 10, 42, 43] {
            for keep in [Keep::None, Keep::LastTwo, Keep::Half, Keep::Quarter] {
                for previous in [None, Some((2, 3)), Some((2, 9))] {
                    if previous.is_some_and(|(_, end)| end >= len) {
                        continue;
                    }
                    let history = conversation(len);
                    let current = previous.map(|(start, end)| DeletedRange { start, end });
                    let got = next_truncation(&history, current, keep).map(|r| (r.start, r.end));
                    assert_eq!(got, reference(len, previous, keep), "L = {len}, {keep:?}, previous {previous:?}");
                    if let Some((_, end)) = got {
                        assert_eq!(history[end].role, Role::Assistant);
                    }
                }
            }
        }
    }

    #[test]
    fn forty_two_messages_give_the_reference_ranges() {
        let history = conversation(42);
        assert_eq!(next_truncation(&history, None, Keep::Half), Some(DeletedRange { start: 2, end: 21 }));
        assert_eq!(next_truncation(&history, None, Keep::Quarter), Some(DeletedRange { start: 2, end: 31 }));
    }

    #[test]
    fn two_user_messages_in_a_row_make_the_end_step_back_further() {
        // 0 user, 1 assistant, then an empty reply: 2 and 3 are both user messages.
        let mut history = vec![text(Role::User, "task"), text(Role::Assistant, "a")];
        history.extend([text(Role::User, "u"), text(Role::User, "u again"), text(Role::Assistant, "b")]);
        history.extend(conversation(5));
        // L = 10, s = 2, half removes 4: end 5 (user) → 4 (assistant).
        let range = next_truncation(&history, None, Keep::Half);
        assert_eq!(range, Some(DeletedRange { start: 2, end: 4 }));
        // Removing 2 would end at 3, a user message after a user message: nothing is left.
        let short: Vec<Message> = history.iter().take(6).cloned().collect();
        assert_eq!(next_truncation(&short, None, Keep::Half), None);
    }

    #[test]
    fn nothing_left_to_remove_keeps_the_range() {
        let history = conversation(5);
        let current = Some(DeletedRange { start: 2, end: 3 });
        assert_eq!(next_truncation(&history, current, Keep::Quarter), current);
    }
}
