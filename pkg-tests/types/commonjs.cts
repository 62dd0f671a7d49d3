// Compiled by types.test.mjs as a CommonJS file (module node16): `require("clew")` has types.
import clew = require("clew");

const task = new clew.Task({ model: { format: "anthropic", id: "m" } });
const outcome: Promise<clew.TaskOutcome> = task.start("go");
void outcome;
