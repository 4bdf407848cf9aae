// The ask page with JavaScript: the question goes to /ui/ask/stream (server-sent events), each step is listed as it
// happens, and the answer (the same fragment the page shows without JavaScript) replaces the list when it arrives.
// A stream the server refuses before it starts (503 llm_unavailable without an LLM, 400/422 for a bad question)
// reaches an EventSource as a bare error, so the refusal's JSON is read once with fetch and its message shown.
(function () {
  const form = document.getElementById("ask-form");
  if (!form || !window.EventSource) return; // the form still POSTs and the page comes back with the answer
  const progress = document.getElementById("progress");
  const steps = document.getElementById("steps");
  const answer = document.getElementById("answer");
  const button = document.getElementById("ask-button");
  let source = null;

  const step = (text, kind) => {
    const item = document.createElement("li");
    item.textContent = text;
    if (kind) item.className = kind;
    steps.appendChild(item);
  };
  const finish = () => {
    if (source) source.close();
    source = null;
    button.disabled = false;
    progress.classList.remove("running");
  };
  const failed = (message) => {
    const alert = document.createElement("p");
    alert.className = "error";
    alert.id = "ask-error";
    alert.setAttribute("role", "alert");
    alert.textContent = message;
    answer.replaceChildren(alert);
    finish();
  };

  const LOST = "The server did not answer the question (the connection was refused or lost).";
  const sentence = (text) => text.charAt(0).toUpperCase() + text.slice(1);
  // Why the server refused the stream: its {"error": {"message"}} (a refusal starts no answer); a stream that
  // opens this time after all is closed at once (the server stops its run when the client leaves).
  const refusal = async (url) => {
    const controller = new AbortController();
    try {
      const response = await fetch(url, {signal: controller.signal, headers: {Accept: "application/json"}});
      const type = response.headers.get("content-type") || "";
      if (!response.ok && type.includes("application/json")) {
        const body = await response.json();
        if (body && body.error && body.error.message) return sentence(body.error.message);
      }
    } catch (_) {
      // no server at all: the connection message below
    } finally {
      controller.abort();
    }
    return LOST;
  };

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    if (source) source.close();
    const old = document.getElementById("ask-error");
    if (old) old.remove();
    const params = new URLSearchParams(new FormData(form));
    steps.replaceChildren();
    answer.replaceChildren();
    progress.hidden = false;
    progress.classList.add("running");
    button.disabled = true;
    step("Asking…");
    let ended = false;
    let opened = false;
    const url = "/ui/ask/stream?" + params.toString();
    source = new EventSource(url);
    source.addEventListener("open", () => {
      opened = true;
    });
    source.addEventListener("progress", (e) => {
      const data = JSON.parse(e.data);
      step(data.message, "stage-" + data.stage);
    });
    source.addEventListener("answer", (e) => {
      answer.innerHTML = JSON.parse(e.data).html; // rendered (and escaped) by the server's template
    });
    source.addEventListener("done", () => {
      ended = true;
      finish();
    });
    // A server-sent "error" event carries data; the browser's own (connection refused or lost) does not.
    source.addEventListener("error", (e) => {
      if (e.data) {
        ended = true;
        failed(JSON.parse(e.data).message);
      } else if (!ended && !opened) {
        ended = true;
        const refused = source;
        refused.close(); // no reconnecting: ask the server once why it refused
        refusal(url).then((message) => {
          if (source === refused) failed(message); // unless another question was asked meanwhile
        });
      } else if (!ended) {
        failed(LOST);
      }
    });
  });
})();
