//! Repeated tool calls: the same call with the same parameters, in any order, counted so
//! the loop can warn at 3 and stop at 5 (AGENT-LOOP: identical-call detection).

use crate::core::hash::StrMap;

/// The last tool call (its name and parameters, `task_progress` aside) and how many times in
/// a row it came with the same parameters, in any order.
#[derive(Clone, Debug, Default)]
pub(crate) struct Repeats {
    name: String,
    /// Where each parameter sits in `params`.
    keys: StrMap,
    params: Vec<(String, String)>,
    count: u32,
}

impl Repeats {
    /// How many times in a row the call has come, counting this one, if it ran.
    pub(crate) fn peek(&self, name: &str, params: &[(String, String)]) -> u32 {
        if self.same(name, params) {
            self.count + 1
        } else {
            1
        }
    }

    fn same(&self, name: &str, params: &[(String, String)]) -> bool {
        let params = || params.iter().filter(|(k, _)| k != "task_progress");
        self.name == name
            && params().count() == self.params.len()
            && params()
                .all(|(k, v)| self.keys.get(k.as_bytes()).and_then(|at| self.params.get(at)).map(|p| &p.1) == Some(v))
    }

    /// Records a call; returns how many times in a row it has now come.
    pub(crate) fn record(&mut self, name: &str, params: &[(String, String)]) -> u32 {
        let params_of = || params.iter().filter(|(k, _)| k != "task_progress");
        if self.same(name, params) {
            self.count += 1;
        } else {
            self.name = name.to_owned();
            self.keys.clear();
            self.params.clear();
            for (k, v) in params_of() {
                self.keys.insert(k.as_bytes(), self.params.len());
                self.params.push((k.clone(), v.clone()));
            }
            self.count = 1;
        }
        self.count
    }

    /// The last call's name, its parameters and how many times in a row it came (a snapshot).
    pub(crate) fn parts(&self) -> (&str, Vec<(String, String)>, u32) {
        (&self.name, self.params.clone(), self.count)
    }

    /// The record a snapshot's [`parts`](Self::parts) describe.
    pub(crate) fn from_parts(name: &str, params: &[(String, String)], count: u32) -> Self {
        let mut repeats = Self::default();
        if count > 0 {
            repeats.record(name, params);
            repeats.count = count;
        }
        repeats
    }
}

#[cfg(test)]
mod tests {
    use super::Repeats;

    fn params(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
    }

    #[test]
    fn the_same_parameters_in_any_order_and_any_progress_note_repeat_a_call() {
        let mut repeats = Repeats::default();
        assert_eq!(repeats.record("read_file", &params(&[("path", "a"), ("start", "1")])), 1);
        assert_eq!(repeats.record("read_file", &params(&[("start", "1"), ("path", "a"), ("task_progress", "x")])), 2);
        assert_eq!(repeats.record("read_file", &params(&[("path", "a"), ("start", "1")])), 3);
        assert_eq!(repeats.record("read_file", &params(&[("path", "a")])), 1, "a parameter fewer");
        assert_eq!(repeats.record("read_file", &params(&[("path", "b")])), 1, "another value");
        assert_eq!(repeats.record("list_files", &params(&[("path", "b")])), 1, "another tool");
    }
}
