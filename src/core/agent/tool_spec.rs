//! The tools a task offers, as the core sees them: their parameters, where each comes from
//! (the options or an MCP server), how it is approved and timed, and the host's describer of
//! its calls. The options give the user's tools; `mcp.rs` makes those of the MCP servers.

use serde::{Deserialize, Serialize};

/// A tool parameter as the model sees it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParamSpec {
    /// The parameter's name (also its XML tag).
    pub name: String,
    /// What to put in it, for the model.
    #[serde(default)]
    pub description: String,
    /// Whether a call without it (or with only whitespace) is a mistake.
    #[serde(default)]
    pub required: bool,
}

/// A tool the user registered.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    /// The tool's name (also its XML tag).
    pub name: String,
    /// What it does, for the model.
    #[serde(default)]
    pub description: String,
    /// Its parameters, in the order the prompt lists them.
    #[serde(default)]
    pub parameters: Vec<ParamSpec>,
    /// A JSON Schema (as JSON text) sent for native tool calling instead of the one derived
    /// from `parameters`.
    #[serde(default)]
    pub input_schema: Option<String>,
    /// Whether the tool only reads: it may be auto-approved as such and does not wait for
    /// the initial checkpoint.
    #[serde(default)]
    pub read_only: bool,
    /// Whether running the tool twice with the same parameters does no more than running it
    /// once: a call that was running when the task was snapshotted runs again on resume
    /// (as a read-only one does) instead of being reported as of unknown outcome.
    #[serde(default)]
    pub idempotent: bool,
    /// Milliseconds after which a running call is cancelled and reported as failed.
    #[serde(default)]
    pub timeout_ms: Option<u64>,
    /// Whether its calls run without asking, whatever the approval settings (an MCP server's
    /// `autoApprove` list names it).
    #[serde(default)]
    pub auto_approve: bool,
    /// Where the tool comes from: the options, or an MCP server's listing.
    #[serde(skip)]
    pub source: ToolSource,
    /// Whether the host describes this tool's calls itself ([`Task::set_describer`](super::Task::set_describer)):
    /// the subject of its results' `[name for '…']` header.
    #[serde(default)]
    pub describe: bool,
}

/// Where a [`ToolSpec`] comes from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum ToolSource {
    /// The task's options (`options.tools`).
    #[default]
    Options,
    /// A tool an MCP server listed: called as `use_mcp_tool` (natively as
    /// `<server>0mcp0<tool>`), shown as a `use_mcp_server` message.
    Mcp {
        /// The server's name.
        server: String,
        /// The tool's name on the server.
        tool: String,
    },
    /// An MCP server's resources, read with `access_mcp_resource`.
    McpResources {
        /// The server's name.
        server: String,
    },
}

/// What the options say of one MCP server (`options.mcpServers[i]`); the host holds its
/// client.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct McpServerSettings {
    /// Its name: the `server_name` the model writes.
    pub name: String,
    /// Its tools that run without asking.
    pub auto_approve: Vec<String>,
    /// Milliseconds a call may run before it is cancelled and fails (default 60 000).
    pub timeout_ms: Option<u64>,
}

/// A host function naming the subject of a tool call's result header from its name and
/// parameters (`None`: the default rule applies). It must be pure and quick: it runs inside
/// the machine, synchronously, once per complete call of a tool with
/// [`ToolSpec::describe`] set.
pub type DescribeFn = dyn Fn(&str, &[(String, String)]) -> Option<String>;

/// The host's [`DescribeFn`], if any.
#[derive(Clone, Default)]
pub(crate) struct Describer(pub(crate) Option<std::rc::Rc<DescribeFn>>);

impl Describer {
    /// The subject the host gives for a call, if it gives one.
    pub(crate) fn describe(&self, name: &str, params: &[(String, String)]) -> Option<String> {
        self.0.as_ref().and_then(|describe| describe(name, params))
    }
}

impl std::fmt::Debug for Describer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() { "Describer(host)" } else { "Describer(none)" })
    }
}
