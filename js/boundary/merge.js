// `Task.mergeSnapshot(stored, changes)`: a stored snapshot with what `options.persist` got
// applied. It reads nothing of a task, so it is plain JavaScript, here because every entry
// loads this module anyway; the entries attach it to Task. `changes` replaces the stored
// history and transcript entries from `historyFrom` and `messagesFrom` on; everything else
// of it is current. Arrays are copied, entries shared.
export function mergeSnapshot(stored, changes) {
  const take = (list, from, items) => {
    const base = Array.isArray(list) ? list.slice(0, Math.max(0, from | 0)) : [];
    return Array.isArray(items) ? base.concat(items) : base;
  };
  const { historyFrom = 0, messagesFrom = 0, ...rest } = changes ?? {};
  return {
    ...rest,
    history: take(stored?.history, historyFrom, changes?.history),
    messages: take(stored?.messages, messagesFrom, changes?.messages),
  };
}
