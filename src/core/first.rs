//! The first error of a reading that goes on past errors, for the readers of cold JSON (a
//! request, a conversation, model settings).

/// The first error of a reading that goes on past errors: each field is read on its own, a
/// bad one as its type's default, and the value made is given up at the end if any was bad
/// ([`First::or`]): the error is the one a reading stopping at its first bad field gives.
/// NOTE: a `?` at each field, each of its returns dropping the fields read before it, made
/// the content block reader about 40% larger in the wasm (502 B gzipped). Kept in this
/// crate, built for size: in `clew-base` (built for speed) it cost about 90 B more.
#[derive(Debug, Default)]
pub(crate) struct First(Option<String>);

impl First {
    /// The value read, or its type's default (noting the error).
    #[inline(never)]
    pub(crate) fn take<T: Default>(&mut self, read: Result<T, String>) -> T {
        read.unwrap_or_else(|error| {
            self.note(error);
            T::default()
        })
    }

    /// Notes an error, unless one came first.
    pub(crate) fn note(&mut self, error: String) {
        self.0.get_or_insert(error);
    }

    /// `value`, unless a read failed.
    pub(crate) fn or<T>(self, value: T) -> Result<T, String> {
        match self.0 {
            Some(error) => Err(error),
            None => Ok(value),
        }
    }
}
