//! The set of tool names and parameter names the parser recognises.
//!
//! Tags are data, not code: the reference loop's 27 tools and 45 parameters form the default
//! set, and a host can build its own (its registered tools plus the loop's built-ins). The
//! parser asks one question of this module: "which roles does this tag name play?".

use crate::hash::StrMap;
use std::fmt;

/// Longest tag name accepted, in bytes.
pub const MAX_NAME_LEN: usize = 64;

/// The reference loop's tool names (the set the conformance vectors use).
pub const REFERENCE_TOOLS: [&str; 27] = [
    "execute_command",
    "read_file",
    "write_to_file",
    "replace_in_file",
    "search_files",
    "list_files",
    "list_code_definition_names",
    "browser_action",
    "use_mcp_tool",
    "access_mcp_resource",
    "load_mcp_documentation",
    "ask_followup_question",
    "attempt_completion",
    "plan_mode_respond",
    "act_mode_respond",
    "new_task",
    "focus_chain",
    "web_fetch",
    "web_search",
    "condense",
    "summarize_task",
    "report_bug",
    "new_rule",
    "apply_patch",
    "generate_explanation",
    "use_skill",
    "use_subagents",
];

/// The reference loop's parameter names. Any of them opens a parameter inside any tool.
pub const REFERENCE_PARAMS: [&str; 45] = [
    "command",
    "requires_approval",
    "path",
    "absolutePath",
    "content",
    "diff",
    "regex",
    "file_pattern",
    "recursive",
    "action",
    "url",
    "coordinate",
    "text",
    "query",
    "allowed_domains",
    "blocked_domains",
    "prompt",
    "server_name",
    "tool_name",
    "arguments",
    "uri",
    "question",
    "options",
    "response",
    "result",
    "context",
    "title",
    "what_happened",
    "steps_to_reproduce",
    "api_request_output",
    "additional_context",
    "needs_more_exploration",
    "task_progress",
    "timeout",
    "input",
    "from_ref",
    "to_ref",
    "skill_name",
    "prompt_1",
    "prompt_2",
    "prompt_3",
    "prompt_4",
    "prompt_5",
    "start_line",
    "end_line",
];

/// Index of a tool name inside its [`ToolSet`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ToolId(u16);

/// Index of a parameter name inside its [`ToolSet`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ParamId(u16);

/// Why a name cannot be added to a [`ToolSet`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ToolSetError {
    /// The name is empty, longer than [`MAX_NAME_LEN`], or has a character outside
    /// `A-Z a-z 0-9 _ - . :` (a tag name must not contain `<`, `>`, `/` or spaces).
    InvalidName(String),
    /// More than 65,535 tool or parameter names.
    TooManyNames,
}

impl fmt::Display for ToolSetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidName(name) => {
                write!(f, "invalid tag name \"{name}\": use 1 to {MAX_NAME_LEN} characters from A-Z a-z 0-9 _ - . :")
            }
            Self::TooManyNames => f.write_str("a tool set holds at most 65535 tool or parameter names"),
        }
    }
}

impl std::error::Error for ToolSetError {}

/// The roles one tag name plays: a name may be both a tool and a parameter.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Roles {
    pub(crate) tool: Option<ToolId>,
    pub(crate) param: Option<ParamId>,
}

/// Tool names and parameter names recognised as tags, case-sensitively.
///
/// ```
/// use clew_codec::parser::ToolSet;
/// let mut tools = ToolSet::empty();
/// let lookup = tools.add_tool("lookup")?;
/// tools.add_param("term")?;
/// assert_eq!(tools.tool_name(lookup), "lookup");
/// assert!(ToolSet::reference().tool_id("read_file").is_some());
/// # Ok::<(), clew_codec::parser::ToolSetError>(())
/// ```
#[derive(Clone, Debug)]
pub struct ToolSet {
    tools: Vec<Box<str>>,
    params: Vec<Box<str>>,
    /// Where each name's roles sit in `name_roles`.
    roles: StrMap,
    name_roles: Vec<Roles>,
    longest_name: usize,
}

impl Default for ToolSet {
    /// The reference tool set, as [`ToolSet::reference`].
    fn default() -> Self {
        Self::reference()
    }
}

impl ToolSet {
    /// A set with no names: every tag is plain text.
    pub fn empty() -> Self {
        Self {
            tools: Vec::new(),
            params: Vec::new(),
            roles: StrMap::default(),
            name_roles: Vec::new(),
            longest_name: 0,
        }
    }

    /// The reference loop's 27 tools and 45 parameters.
    pub fn reference() -> Self {
        let mut set = Self::empty();
        // NOTE: the reference names are valid and few, so these additions cannot fail; an
        // error would only leave a name out, never panic.
        for name in REFERENCE_TOOLS {
            let _ = set.add_tool(name);
        }
        for name in REFERENCE_PARAMS {
            let _ = set.add_param(name);
        }
        set
    }

    /// Builds a set from tool names and parameter names.
    ///
    /// # Errors
    /// [`ToolSetError`] for the first invalid name.
    pub fn from_names<T, P>(tools: T, params: P) -> Result<Self, ToolSetError>
    where
        T: IntoIterator,
        T::Item: AsRef<str>,
        P: IntoIterator,
        P::Item: AsRef<str>,
    {
        let mut set = Self::empty();
        for name in tools {
            set.add_tool(name.as_ref())?;
        }
        for name in params {
            set.add_param(name.as_ref())?;
        }
        Ok(set)
    }

    /// Adds a tool name (or returns the id it already has).
    ///
    /// # Errors
    /// [`ToolSetError::InvalidName`] or [`ToolSetError::TooManyNames`].
    pub fn add_tool(&mut self, name: &str) -> Result<ToolId, ToolSetError> {
        if let Some(id) = self.tool_id(name) {
            return Ok(id);
        }
        let id = ToolId(self.next_index(self.tools.len(), name)?);
        self.tools.push(name.into());
        if let Some(roles) = self.roles_mut(name) {
            roles.tool = Some(id);
        }
        self.longest_name = self.longest_name.max(name.len());
        Ok(id)
    }

    /// Adds a parameter name (or returns the id it already has).
    ///
    /// # Errors
    /// [`ToolSetError::InvalidName`] or [`ToolSetError::TooManyNames`].
    pub fn add_param(&mut self, name: &str) -> Result<ParamId, ToolSetError> {
        if let Some(id) = self.param_id(name) {
            return Ok(id);
        }
        let id = ParamId(self.next_index(self.params.len(), name)?);
        self.params.push(name.into());
        if let Some(roles) = self.roles_mut(name) {
            roles.param = Some(id);
        }
        self.longest_name = self.longest_name.max(name.len());
        Ok(id)
    }

    fn next_index(&self, count: usize, name: &str) -> Result<u16, ToolSetError> {
        let valid = !name.is_empty()
            && name.len() <= MAX_NAME_LEN
            && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':'));
        if !valid {
            return Err(ToolSetError::InvalidName(name.to_owned()));
        }
        u16::try_from(count).map_err(|_| ToolSetError::TooManyNames)
    }

    /// The id of a tool name, if the set has it.
    pub fn tool_id(&self, name: &str) -> Option<ToolId> {
        self.roles(name.as_bytes()).tool
    }

    /// The id of a parameter name, if the set has it.
    pub fn param_id(&self, name: &str) -> Option<ParamId> {
        self.roles(name.as_bytes()).param
    }

    /// The name of a tool id; `""` for an id from another set.
    pub fn tool_name(&self, id: ToolId) -> &str {
        self.tools.get(usize::from(id.0)).map_or("", |name| name)
    }

    /// The name of a parameter id; `""` for an id from another set.
    pub fn param_name(&self, id: ParamId) -> &str {
        self.params.get(usize::from(id.0)).map_or("", |name| name)
    }

    /// All tool names, in the order they were added.
    pub fn tool_names(&self) -> impl Iterator<Item = &str> {
        self.tools.iter().map(|name| &**name)
    }

    /// All parameter names, in the order they were added.
    pub fn param_names(&self) -> impl Iterator<Item = &str> {
        self.params.iter().map(|name| &**name)
    }

    /// Length in bytes of the longest possible tag, `</` + longest name + `>`.
    pub(crate) fn longest_tag(&self) -> usize {
        self.longest_name + 3
    }

    /// The roles of a tag name given as bytes (no `<`, `/` or `>`).
    pub(crate) fn roles(&self, name: &[u8]) -> Roles {
        self.roles.get(name).and_then(|at| self.name_roles.get(at)).copied().unwrap_or_default()
    }

    /// The roles of a name being added, made empty if it has none yet (always `Some`).
    fn roles_mut(&mut self, name: &str) -> Option<&mut Roles> {
        let at = self.roles.get(name.as_bytes()).unwrap_or_else(|| {
            self.roles.insert(name.as_bytes(), self.name_roles.len());
            self.name_roles.push(Roles::default());
            self.name_roles.len() - 1
        });
        self.name_roles.get_mut(at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_set_has_every_name() {
        let set = ToolSet::reference();
        assert_eq!(set.tool_names().count(), 27);
        assert_eq!(set.param_names().count(), 45);
        assert_eq!(set.longest_tag(), "</list_code_definition_names>".len());
    }

    #[test]
    fn adding_a_name_twice_returns_the_same_id() {
        let mut set = ToolSet::empty();
        let first = set.add_tool("lookup");
        assert_eq!(first, set.add_tool("lookup"));
        assert_eq!(set.tool_names().count(), 1);
    }

    #[test]
    fn a_name_can_be_both_tool_and_param() {
        let mut set = ToolSet::empty();
        let tool = set.add_tool("query").ok();
        let param = set.add_param("query").ok();
        assert_eq!(set.roles(b"query"), Roles { tool, param });
    }

    #[test]
    fn invalid_names_are_rejected() {
        let mut set = ToolSet::empty();
        for bad in ["", "a b", "<x>", "/x", "x>", &"n".repeat(MAX_NAME_LEN + 1)] {
            assert_eq!(set.add_tool(bad), Err(ToolSetError::InvalidName(bad.to_owned())));
        }
        assert_eq!(set.tool_names().count(), 0);
    }
}
