// The Worker in front of the task objects: it checks requests and hands each to the object
// of its task (one Durable Object per task, named by the id `POST /tasks` returned).
//
//   POST /tasks                  { text, images?, files? }  → 201 { id }
//   GET  /tasks/:id              the task's state, outcome and pending ask
//   GET  /tasks/:id/messages     the stored transcript
//   GET  /tasks/:id/events       the transcript as Server-Sent Events (Last-Event-ID resumes)
//   POST /tasks/:id/answer       { response, text?, images?, ts? }  answers the pending ask
//   POST /tasks/:id/abort        { reason? }

export { TaskObject } from "./task-object.js";

const json = (body, status = 200, headers = {}) => Response.json(body, { status, headers });

async function readJson(request) {
  try {
    const body = await request.json();
    return body && typeof body === "object" && !Array.isArray(body) ? body : undefined;
  } catch {
    return undefined;
  }
}

const isStrings = (value) => Array.isArray(value) && value.every((item) => typeof item === "string");

/** The object id in a URL, or null when it is not one of this namespace's ids. */
function objectId(env, text) {
  try {
    return env.TASKS.idFromString(text);
  } catch {
    return null;
  }
}

async function create(request, env) {
  const body = await readJson(request);
  if (!body || typeof body.text !== "string" || body.text.trim() === "") {
    return json({ error: "the body must be JSON with a non-empty string `text`" }, 400);
  }
  if (body.images !== undefined && !isStrings(body.images)) return json({ error: "`images` must be an array of strings" }, 400);
  const files = body.files ?? {};
  if (typeof files !== "object" || Array.isArray(files) || !Object.values(files).every((c) => typeof c === "string")) {
    return json({ error: "`files` must map paths to strings" }, 400);
  }
  // A fresh id per task: the object lives where it is first used, close to this request.
  const id = env.TASKS.newUniqueId();
  const { status, body: result } = await env.TASKS.get(id).start({ text: body.text, images: body.images, files });
  return json(result, status, status === 201 ? { location: `/tasks/${result.id}` } : {});
}

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const [collection, idText, action = "", ...rest] = url.pathname.split("/").filter(Boolean);
    if (collection !== "tasks" || rest.length > 0) return json({ error: "not found" }, 404);
    if (idText === undefined) {
      return request.method === "POST" ? create(request, env) : json({ error: "use POST" }, 405, { allow: "POST" });
    }
    const id = objectId(env, idText);
    if (!id) return json({ error: "no such task" }, 404);
    const task = env.TASKS.get(id);
    const route = `${request.method} ${action}`;
    let result;
    switch (route) {
      case "GET ":
        result = await task.status();
        break;
      case "GET messages":
        result = await task.transcript();
        break;
      case "GET events":
        // Streams straight from the object; its headers (Last-Event-ID) go along.
        return task.fetch(new Request(`https://task/events${url.search}`, { headers: request.headers }));
      case "POST answer": {
        const body = await readJson(request);
        if (!body) return json({ error: "the body must be a JSON object" }, 400);
        result = await task.answer({ response: body.response, text: body.text, images: body.images, ts: body.ts });
        break;
      }
      case "POST abort": {
        const body = (await readJson(request)) ?? {};
        result = await task.abort(body.reason);
        break;
      }
      default:
        return json({ error: "not found" }, 404);
    }
    return json(result.body, result.status);
  },
};
