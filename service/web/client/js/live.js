// Live updates (docs/live.md): the API redirects the stream request to the stream process with
// a one-time ticket. EventSource cannot send the bearer token, so the stream is read with
// fetch, which sends it to the API only (the browser drops it on the cross-origin redirect),
// and the Server-Sent Events are parsed here. A broken stream is reopened after 3 s; the
// caller rereads what it shows, so nothing missed while disconnected is lost.
export function follow(account, onEvent) {
  let stopped = false;
  let controller;
  async function run() {
    while (!stopped) {
      controller = new AbortController();
      try {
        const resp = await fetch("/v1/players/me/stream", {
          headers: { Authorization: "Bearer " + account.token }, signal: controller.signal });
        if (!resp.ok || !resp.body) throw new Error("stream refused");
        await read(resp.body, onEvent);
      } catch (err) {
        if (stopped) return;
      }
      onEvent("reconnect", {});
      await new Promise((r) => setTimeout(r, 3000));
    }
  }
  run();
  return () => { stopped = true; if (controller) controller.abort(); };
}

async function read(body, onEvent) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value.replaceAll("\r\n", "\n");
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let name = "message", data = "";
      for (const line of block.split("\n")) {
        if (line.startsWith("event:")) name = line.slice(6).trim();
        else if (line.startsWith("data:")) data += line.slice(5).trimStart();
      }
      if (data) onEvent(name, JSON.parse(data));
    }
  }
}
