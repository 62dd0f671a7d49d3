//! The MCP servers' listing before a request, as the task waits for it: each answer of the
//! host read as the catalog so far, and the end of the wait, when no server is being listed
//! any more or at the listing's deadline (`options.timeouts.mcpListingMs`), which leaves the
//! servers still being listed out of the task. The inputs are `Task::handle_mcp_servers` and
//! `Task::handle_timeout` (inputs.rs); `mcp.rs` reads a listing.

use std::rc::Rc;

use super::config::ToolCalling;
use super::effect::Effect;
use super::mcp::McpCatalog;
use super::message::SayKind;
use super::round_state::{Round, StreamPhase};
use super::task::Ctx;
use super::texts;
use crate::core::json::Json;
use crate::core::parser::IncrementalParser;

impl Ctx {
    /// Reads the host's listing of the MCP servers (those left out aside) as the catalog and,
    /// when `tell`, reports each server that failed.
    pub(crate) fn read_listing(&mut self, listing: &Json, tell: bool) {
        let native = self.config.tool_calling == ToolCalling::Native;
        let (catalog, errors) = McpCatalog::read(listing, &self.config.mcp_servers, native, &self.mcp_left_out);
        self.set_catalog(catalog);
        if tell {
            for error in errors {
                self.say(SayKind::Error, error);
            }
        }
    }

    /// The listing's deadline came: each server still being listed is reported and left
    /// out (taken out of the catalog too, when it was in it), and the request goes out.
    pub(crate) fn listing_timed_out(&mut self, round: &mut Round) {
        let ms = self.config.mcp_listing_ms.unwrap_or_default();
        for server in std::mem::take(&mut self.mcp_listed) {
            self.say(SayKind::Error, texts::mcp_not_listed(&server, ms));
            self.mcp_left_out.push(server);
        }
        if let Ok(listing) = Json::parse(&self.catalog.listing) {
            self.read_listing(&listing, false);
        }
        self.end_listing(round);
    }

    /// Ends the round's listing: its wake-up is cleared (the one asked for the deadline, if
    /// still armed) and the request goes out with the catalog as it is.
    pub(crate) fn end_listing(&mut self, round: &mut Round) {
        if let StreamPhase::Listing { deadline: Some(at), .. } = round.stream {
            if self.wake == Some(at) {
                self.wake = None;
                self.effects.push_back(Effect::WakeAt(None));
            }
        }
        round.parser = IncrementalParser::new(Rc::clone(&self.tools));
        self.send_request(round);
    }
}
