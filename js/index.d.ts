// Types of every entry point: the generated bindings, already initialised.
export * from "./clew.js";
