//! Context management's inputs from the host: `task.condense()` handed to the machine, and
//! `contextManagement.summarize.readRequiredFiles(paths, { signal, taskId })`, the files a
//! summary names ([`Effect::ReadRequiredFiles`](crate::core::agent::Effect::ReadRequiredFiles)),
//! read like a tool runs: its signal fires on abort, and an answer that comes after the task
//! moved on is ignored by the machine. Which files are kept, and how, is the core's.

use std::rc::Rc;

use js_sys::{Array, Object, Reflect};
use wasm_bindgen::prelude::*;

use super::super::js_call::{abort_controller, call_with};
use super::Driver;
use crate::core::json::Json;

impl Driver {
    /// Condenses the conversation now (the machine's `condense`); `Err` with why it cannot,
    /// for the caller's error.
    pub(in crate::wasm) fn condense(self: &Rc<Self>, instructions: Option<&str>) -> Result<(), String> {
        let now = self.now();
        let done = match self.machine.try_borrow_mut() {
            Ok(mut machine) => machine.condense(now, instructions),
            Err(_) => Err("condense() cannot be called from inside a tool's describe".to_owned()),
        };
        if done.is_ok() {
            self.drive();
        }
        done
    }

    /// Calls `readRequiredFiles(paths, { signal, taskId })` and hands the machine the files
    /// it gave: none when it throws, rejects or gives anything but a list of
    /// `{ path, content }` (entries of another shape are skipped).
    pub(super) fn read_required_files(self: &Rc<Self>, id: u64, paths: Vec<String>) {
        let read = self.callback(|c| c.read_required_files.clone());
        let result = match read {
            Some(read) => {
                let context = Object::new();
                if let Some(controller) = abort_controller() {
                    let _ = Reflect::set(&context, &"signal".into(), &controller.signal());
                    self.tools.borrow_mut().push((id, controller));
                }
                let _ = Reflect::set(&context, &"taskId".into(), &JsValue::from_str(&self.task_id));
                let list = Array::new();
                for path in &paths {
                    list.push(&JsValue::from_str(path));
                }
                call_with(&read, &JsValue::UNDEFINED, &list, &context)
            }
            None => Ok(JsValue::UNDEFINED),
        };
        self.when_settled(
            result,
            Box::new(move |me, value| {
                let files = value.map(|v| files_from_js(&v)).unwrap_or_default();
                me.tools.borrow_mut().retain(|(t, _)| *t != id);
                me.handle(|m, now| m.handle_required_files(now, id, files));
            }),
        );
    }
}

/// `[{ path, content }]` (strings) as `(path, content)` pairs, read through JSON so that no
/// getter of the user's objects runs inside wasm; other entries are skipped, and anything
/// but a list gives none.
fn files_from_js(value: &JsValue) -> Vec<(String, String)> {
    let Ok(Json::Array(entries)) = super::super::json_js::from_js(value) else { return Vec::new() };
    let mut files = Vec::new();
    for entry in &entries {
        let text = |key: &str| entry.get(key).and_then(Json::as_str);
        if let (Some(path), Some(content)) = (text("path"), text("content")) {
            files.push((path.to_owned(), content.to_owned()));
        }
    }
    files
}
